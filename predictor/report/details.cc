#include "predictor/report/details.h"

#include <fmt/format.h>

namespace seer::predictor {

Status CollectReportDetails(const std::string& path, const TraceInfo& info, const Findings& findings,
                            const SymbolizerOptions& options, ReportDetails* out) {
  out->symbolizer = std::make_unique<Symbolizer>(info.modules, options);
  return ReportContext::Collect(path, findings, &out->context);
}

std::vector<Frame> StackFrames(ReportDetails& details, const std::vector<uint64_t>& stack) {
  std::vector<Frame> frames;
  for (uint64_t pc : stack) {
    const std::vector<Frame>& f = details.symbolizer->Symbolize(pc);
    frames.insert(frames.end(), f.begin(), f.end());
  }
  return frames;
}

std::vector<Frame> EventFrames(ReportDetails& details, const EventRef& e) {
  if (e.tid == kThreadNotSeen) return {};  // a caught race's unseen writer: no pc, no stack
  const EventContext* c = details.context.At(e.index);
  return StackFrames(details, c != nullptr ? c->stack : std::vector<uint64_t>{e.pc});
}

bool IsLibrarySource(const std::string& file) {
  return file.rfind("/usr/", 0) == 0 || file.rfind("./", 0) == 0 || file.rfind("../", 0) == 0;
}

size_t OwnFrame(const std::vector<Frame>& frames) {
  for (size_t i = 0; i < frames.size(); ++i)
    if (!frames[i].file.empty() && !IsLibrarySource(frames[i].file)) return i;
  return 0;
}

std::string EventSite(const ReportNames& names, ReportDetails* details, const EventRef& e) {
  if (e.tid == kThreadNotSeen) return "an unseen access (the value changed)";
  if (details != nullptr) {
    const std::vector<Frame> frames = EventFrames(*details, e);
    // The innermost frame of the program's own code: a lock is taken "in
    // Transfer service.cc:36", not in the inlined std::mutex::lock.
    const size_t pick = OwnFrame(frames);
    if (!frames.empty() && !frames[pick].function.empty()) {
      const Frame& f = frames[pick];
      if (f.file.empty()) return f.function;
      return f.line ? fmt::format("{} {}:{}", f.function, f.file, f.line) : fmt::format("{} {}", f.function, f.file);
    }
  }
  return names.Site(e.pc);
}

std::string GlobalName(ReportDetails& details, uint64_t address) {
  DataSymbol sym;
  if (!details.symbolizer->FindGlobal(address, &sym)) return std::string();
  return address == sym.address ? sym.name : fmt::format("{}+{:#x}", sym.name, address - sym.address);
}

VariableInfo DescribeVariable(ReportDetails& details, const EventRef& access) {
  VariableInfo v;
  v.address = access.object;
  v.size = access.size;
  if (details.symbolizer->FindGlobal(access.object, &v.global)) {
    v.kind = "global";
    v.name = v.global.name;
    v.address = v.global.address;
    v.size = v.global.size;
  } else if (const MemoryBlock* b = details.context.Block(access.object, access.index)) {
    v.block = b;
    v.address = b->address;
    v.size = b->size;
    switch (b->region) {
      case AllocRegion::kStack: v.kind = "stack"; break;
      case AllocRegion::kTls: v.kind = "tls"; break;
      case AllocRegion::kFileDescriptor:
      case AllocRegion::kFileDescriptorReset:
      case AllocRegion::kFileDescriptorDup:
        v.kind = "fd";
        v.name = std::to_string(b->address - kFdShadowBase);
        break;
      default: v.kind = "heap"; break;
    }
    if (b->region == AllocRegion::kTls && details.symbolizer->FindTls(b->pc, access.object - b->address, &v.global)) {
      v.global.address += b->address;  // this thread's copy
      v.name = v.global.name;
      v.address = v.global.address;
      v.size = v.global.size;
    }
  }
  return v;
}

uint64_t ShownSize(const EventRef& e, const VariableInfo& v) {
  if (e.kind == EventKind::kFree && v.block != nullptr && v.block->address == e.object) return v.block->size;
  return e.size;
}

}  // namespace seer::predictor
