// What the recorder reads from ELF files with libelf: the file offsets of the
// functions it probes (default symbol version, as ld.so would bind them), the
// range of a function for filtering, whether a binary is dynamically linked,
// and whether it carries the seer runtime.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "seer/status.h"

namespace seer::recorder {

struct FunctionLocation {
  uint64_t file_offset = 0;  // what uprobes attach to
  uint64_t size = 0;
};

// Resolves each of `names` in `path`: .dynsym first, taking the default (`@@`)
// version where glibc exports several (libbpf 1.1 refuses those as ambiguous),
// then .symtab (statically linked binaries). Names not found are left out of *out.
Status ResolveFunctions(const std::string& path, const std::vector<std::string>& names,
                        std::map<std::string, FunctionLocation>* out);

// True when `path` has a PT_INTERP segment (ld.so loads its libraries).
Status IsDynamicallyLinked(const std::string& path, bool* dynamic);

// True when `path` is an ELF file that defines `name` (any symbol type) in
// .dynsym or .symtab; false when it does not, or cannot be read as ELF.
bool HasDefinedSymbol(const std::string& path, const std::string& name);

}  // namespace seer::recorder
