#include "runtime/drain/elf_symbols.h"

#include <elf.h>

#include <cstring>
#include <fstream>
#include <vector>

namespace seer {
namespace {

bool ReadAt(std::ifstream& f, uint64_t offset, void* out, size_t n) {
  f.seekg(static_cast<std::streamoff>(offset));
  return static_cast<bool>(f.read(static_cast<char*>(out), static_cast<std::streamsize>(n)));
}

}  // namespace

bool HasDefinedSymbol(const std::string& path, const std::string& name) {
  std::ifstream f(path, std::ios::binary);
  if (!f) return false;
  Elf64_Ehdr eh;
  if (!ReadAt(f, 0, &eh, sizeof eh) || std::memcmp(eh.e_ident, ELFMAG, SELFMAG) != 0 ||
      eh.e_ident[EI_CLASS] != ELFCLASS64 || eh.e_shentsize != sizeof(Elf64_Shdr) || eh.e_shnum > 4096)
    return false;
  std::vector<Elf64_Shdr> sections(eh.e_shnum);
  if (!ReadAt(f, eh.e_shoff, sections.data(), sections.size() * sizeof(Elf64_Shdr))) return false;
  for (const Elf64_Shdr& sh : sections) {
    if ((sh.sh_type != SHT_SYMTAB && sh.sh_type != SHT_DYNSYM) || sh.sh_link >= sections.size() ||
        sh.sh_entsize != sizeof(Elf64_Sym) || sh.sh_size > (256u << 20))
      continue;
    const Elf64_Shdr& strtab = sections[sh.sh_link];
    if (strtab.sh_size > (256u << 20)) continue;
    std::vector<char> names(strtab.sh_size + 1, '\0');
    std::vector<Elf64_Sym> syms(sh.sh_size / sizeof(Elf64_Sym));
    if (!ReadAt(f, strtab.sh_offset, names.data(), strtab.sh_size) ||
        !ReadAt(f, sh.sh_offset, syms.data(), syms.size() * sizeof(Elf64_Sym)))
      continue;
    for (const Elf64_Sym& s : syms)
      if (s.st_shndx != SHN_UNDEF && s.st_name < strtab.sh_size && name == &names[s.st_name]) return true;
  }
  return false;
}

}  // namespace seer
