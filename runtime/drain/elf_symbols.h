// Symbol look-up in an ELF file on disk, without loading it: enough to tell
// whether a binary carries the seer runtime (`seer record --sync=auto`).
#pragma once

#include <string>

namespace seer {

// True when `path` is an ELF file that defines `name` in .symtab or .dynsym.
bool HasDefinedSymbol(const std::string& path, const std::string& name);

}  // namespace seer
