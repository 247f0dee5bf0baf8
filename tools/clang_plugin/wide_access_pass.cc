// A clang pass plugin (`-fpass-plugin=`) that seer-clang loads: clang 14's
// ThreadSanitizer pass instruments loads and stores of 1, 2, 4, 8 and 16 bytes
// and silently skips every other size, so 32- and 64-byte vector moves
// (`_mm256_storeu_si256`, `_mm512_loadu_si512`, what the vectorizers make under
// -mavx2) and odd-sized aggregate loads reach no hook. This pass runs first (its
// optimizer-last callback is registered before clang registers the sanitizers')
// and puts a `__tsan_read_range(p, n)` / `__tsan_write_range(p, n)` call before
// each such access, which the runtime records as a range (docs/runtime.md,
// "Differences between compilers"). The ThreadSanitizer pass then leaves the
// access itself alone, as before.
#include <llvm/Analysis/CaptureTracking.h>
#include <llvm/Analysis/ValueTracking.h>
#include <llvm/IR/IRBuilder.h>
#include <llvm/IR/Instructions.h>
#include <llvm/IR/Module.h>
#include <llvm/IR/PassManager.h>
#include <llvm/Passes/PassBuilder.h>
#include <llvm/Passes/PassPlugin.h>

#include <cstdint>
#include <vector>

namespace {

using namespace llvm;

// The sizes the ThreadSanitizer pass instruments itself (__tsan_read1 .. 16).
bool TsanInstruments(uint64_t bytes) { return bytes == 1 || bytes == 2 || bytes == 4 || bytes == 8 || bytes == 16; }

// Accesses to a stack slot whose address never escapes cannot race: the
// ThreadSanitizer pass skips them too.
bool ThreadLocalSlot(Value* address) {
  const Value* object = getUnderlyingObject(address);
  return isa<AllocaInst>(object) && !PointerMayBeCaptured(object, /*ReturnCaptures=*/true, /*StoreCaptures=*/true);
}

struct WideAccessPass : PassInfoMixin<WideAccessPass> {
  // Runs at -O0 too, where every function is optnone, as the ThreadSanitizer pass does.
  static bool isRequired() { return true; }

  PreservedAnalyses run(Function& f, FunctionAnalysisManager&) {
    if (!f.hasFnAttribute(Attribute::SanitizeThread) || f.isDeclaration()) return PreservedAnalyses::all();
    const DataLayout& layout = f.getParent()->getDataLayout();
    struct Wide {
      Instruction* access;
      Value* address;
      uint64_t bytes;
      bool write;
    };
    std::vector<Wide> wide;
    for (BasicBlock& block : f)
      for (Instruction& i : block) {
        Value* address = nullptr;
        Type* type = nullptr;
        bool write = false;
        if (auto* load = dyn_cast<LoadInst>(&i)) {
          if (load->isAtomic()) continue;
          address = load->getPointerOperand();
          type = load->getType();
        } else if (auto* store = dyn_cast<StoreInst>(&i)) {
          if (store->isAtomic()) continue;
          address = store->getPointerOperand();
          type = store->getValueOperand()->getType();
          write = true;
        } else {
          continue;
        }
        if (address->getType()->getPointerAddressSpace() != 0) continue;
        const TypeSize size = layout.getTypeStoreSize(type);
        if (size.isScalable() || size.getFixedSize() == 0 || TsanInstruments(size.getFixedSize())) continue;
        if (ThreadLocalSlot(address)) continue;
        wide.push_back({&i, address, size.getFixedSize(), write});
      }
    if (wide.empty()) return PreservedAnalyses::all();

    Module& module = *f.getParent();
    LLVMContext& context = module.getContext();
    Type* void_type = Type::getVoidTy(context);
    Type* byte_pointer = Type::getInt8PtrTy(context);
    Type* intptr = layout.getIntPtrType(context);
    FunctionCallee read_range = module.getOrInsertFunction("__tsan_read_range", void_type, byte_pointer, intptr);
    FunctionCallee write_range = module.getOrInsertFunction("__tsan_write_range", void_type, byte_pointer, intptr);
    for (const Wide& w : wide) {
      IRBuilder<> builder(w.access);  // before the access, with its debug location
      builder.CreateCall(w.write ? write_range : read_range,
                         {builder.CreatePointerCast(w.address, byte_pointer), ConstantInt::get(intptr, w.bytes)});
    }
    return PreservedAnalyses::none();
  }
};

}  // namespace

extern "C" LLVM_ATTRIBUTE_WEAK PassPluginLibraryInfo llvmGetPassPluginInfo() {
  return {LLVM_PLUGIN_API_VERSION, "seer-wide-access", "1", [](PassBuilder& builder) {
            builder.registerOptimizerLastEPCallback([](ModulePassManager& modules, OptimizationLevel) {
              modules.addPass(createModuleToFunctionPassAdaptor(WideAccessPass()));
            });
          }};
}
