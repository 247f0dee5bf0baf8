// Program counters and data addresses of a recorded trace turned into source
// locations and names, with elfutils (libdwfl) and the trace's module map. Each
// module is checked against its recorded build-id before it is trusted.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "seer/trace.h"

struct Dwfl;  // elfutils

namespace seer::predictor {

// One frame of a symbolised pc. Inlined calls give several frames for one pc,
// innermost first; all but the last have `inlined` set.
struct Frame {
  uint64_t pc = 0;
  std::string module;    // path of the module as recorded, "" when no module maps pc
  uint64_t offset = 0;   // address in the ELF file (as addr2line takes it); file offset when unsymbolised
  std::string function;  // demangled; "" when unknown
  std::string file;      // as the DWARF line table names it; "" when unknown
  uint32_t line = 0;     // 0 when unknown
  uint32_t column = 0;   // 0 when unknown
  bool inlined = false;
};

// A named object of a module's data (a global or static variable).
struct DataSymbol {
  std::string name;
  uint64_t address = 0;  // run-time address of the symbol's first byte
  uint64_t size = 0;
  std::string module;
  uint64_t offset = 0;  // address of the symbol in the ELF file
};

struct SymbolizerOptions {
  // Folders searched (by file name) for a module that moved or changed: the one
  // whose build-id matches the recorded one is used.
  std::vector<std::string> binary_dirs;
  // Root of the separate debug files, searched as <root>/.build-id/xx/yyyy.debug.
  std::string debug_root = "/usr/lib/debug";
};

class Symbolizer {
 public:
  Symbolizer(const std::vector<ModuleInfo>& modules, const SymbolizerOptions& options);
  ~Symbolizer();
  Symbolizer(const Symbolizer&) = delete;
  Symbolizer& operator=(const Symbolizer&) = delete;

  // Frames for `pc`, innermost first (never empty). Recorded pcs are return
  // addresses (of a hook or of a call): the line looked up is that of pc - 1.
  const std::vector<Frame>& Symbolize(uint64_t pc);

  // The global or static variable containing `address`, if a module defines one.
  bool FindGlobal(uint64_t address, DataSymbol* out);

  // True when the debug information of the module that defines the global at
  // `address` gives the bytes there an atomic type: C11 `_Atomic`, or a C++
  // `std::atomic`, `std::atomic_flag` or `std::__atomic_base` (as a whole, a
  // member, or an array element). False when it does not, or says nothing (no
  // DWARF, not a global). Relaxed atomic loads and stores are plain moves on
  // x86: only the types tell them from plain accesses.
  bool IsAtomicAt(uint64_t address);

  // The thread-local variable at byte `offset` of a TLS block of the module
  // whose TLS image is at run-time address `image` (the pc of a TLS kAlloc).
  // out->address and out->offset are the symbol's offset in the block (the
  // caller adds the block's address); out->module names the module.
  bool FindTls(uint64_t image, uint64_t offset, DataSymbol* out);

  // One line per module that could not be used ("...: changed since recording
  // (build-id differs); its frames are not symbolised"), in the order met.
  const std::vector<std::string>& warnings() const { return warnings_; }

 private:
  struct Module;
  Module* ModuleFor(uint64_t address);
  bool Load(Module* m);
  void Warn(const std::string& message);

  SymbolizerOptions options_;
  std::vector<std::unique_ptr<Module>> modules_;
  std::map<uint64_t, std::vector<Frame>> cache_;
  std::vector<std::string> warnings_;
  ::Dwfl* dwfl_ = nullptr;
};

}  // namespace seer::predictor
