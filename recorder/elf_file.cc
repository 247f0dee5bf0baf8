// libelf readers for the recorder: symbol offsets by version, PT_INTERP, defined symbols.
#include "recorder/elf_file.h"

#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <set>

namespace seer::recorder {
namespace {

// An open ELF file; closes both handles on scope exit.
class ElfHandle {
 public:
  ~ElfHandle() {
    if (elf_) elf_end(elf_);
    if (fd_ >= 0) close(fd_);
  }

  Status Open(const std::string& path) {
    if (elf_version(EV_CURRENT) == EV_NONE) return Status::Internal("libelf: " + std::string(elf_errmsg(-1)));
    fd_ = open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd_ < 0) {
      int err = errno;
      std::string msg = path + ": " + strerror(err);
      return err == ENOENT ? Status::NotFound(msg) : Status::IOError(msg);
    }
    elf_ = elf_begin(fd_, ELF_C_READ_MMAP, nullptr);
    if (!elf_ || elf_kind(elf_) != ELF_K_ELF) return Status::InvalidArgument(path + ": not an ELF file");
    return Status::Ok();
  }

  Elf* elf() const { return elf_; }

 private:
  int fd_ = -1;
  Elf* elf_ = nullptr;
};

constexpr uint16_t kVersymHidden = 0x8000;

// File offset of virtual address `vaddr`, through the PT_LOAD segment that holds it.
bool VaddrToOffset(Elf* elf, uint64_t vaddr, uint64_t* offset) {
  size_t n = 0;
  if (elf_getphdrnum(elf, &n) != 0) return false;
  for (size_t i = 0; i < n; ++i) {
    GElf_Phdr ph;
    if (!gelf_getphdr(elf, static_cast<int>(i), &ph) || ph.p_type != PT_LOAD) continue;
    if (vaddr >= ph.p_vaddr && vaddr < ph.p_vaddr + ph.p_filesz) {
      *offset = vaddr - ph.p_vaddr + ph.p_offset;
      return true;
    }
  }
  return false;
}

struct Candidate {
  FunctionLocation loc;
  bool is_default = false;
};

// Scans one symbol table; `versym` is the matching .gnu.version data (dynsym only).
void ScanSymbols(Elf* elf, Elf_Scn* scn, Elf_Data* versym, const std::set<std::string>& wanted,
                 std::map<std::string, Candidate>* found) {
  GElf_Shdr sh;
  if (!gelf_getshdr(scn, &sh) || sh.sh_entsize == 0) return;
  Elf_Data* data = elf_getdata(scn, nullptr);
  if (!data) return;
  size_t count = sh.sh_size / sh.sh_entsize;
  for (size_t i = 0; i < count; ++i) {
    GElf_Sym sym;
    if (!gelf_getsym(data, static_cast<int>(i), &sym)) continue;
    if (sym.st_shndx == SHN_UNDEF || sym.st_value == 0) continue;
    int type = GELF_ST_TYPE(sym.st_info);
    if (type != STT_FUNC && type != STT_GNU_IFUNC) continue;
    const char* name = elf_strptr(elf, sh.sh_link, sym.st_name);
    if (!name || !wanted.count(name)) continue;
    // Without version info the symbol is the only one of its name: the default.
    bool is_default = true;
    if (versym && (i + 1) * sizeof(GElf_Versym) <= versym->d_size) {
      GElf_Versym v;
      if (gelf_getversym(versym, static_cast<int>(i), &v)) is_default = (v & kVersymHidden) == 0;
    }
    auto it = found->find(name);
    if (it != found->end() && (it->second.is_default || !is_default)) continue;
    Candidate c;
    c.is_default = is_default;
    c.loc.size = sym.st_size;
    if (!VaddrToOffset(elf, sym.st_value, &c.loc.file_offset)) continue;
    (*found)[name] = c;
  }
}

}  // namespace

Status ResolveFunctions(const std::string& path, const std::vector<std::string>& names,
                        std::map<std::string, FunctionLocation>* out) {
  ElfHandle h;
  Status st = h.Open(path);
  if (!st.ok()) return st;
  Elf_Scn* dynsym = nullptr;
  Elf_Scn* symtab = nullptr;
  Elf_Data* versym = nullptr;
  for (Elf_Scn* scn = elf_nextscn(h.elf(), nullptr); scn; scn = elf_nextscn(h.elf(), scn)) {
    GElf_Shdr sh;
    if (!gelf_getshdr(scn, &sh)) continue;
    if (sh.sh_type == SHT_DYNSYM) dynsym = scn;
    if (sh.sh_type == SHT_SYMTAB) symtab = scn;
    if (sh.sh_type == SHT_GNU_versym) versym = elf_getdata(scn, nullptr);
  }
  std::set<std::string> wanted(names.begin(), names.end());
  std::map<std::string, Candidate> found;
  if (dynsym) ScanSymbols(h.elf(), dynsym, versym, wanted, &found);
  if (symtab) {
    std::set<std::string> rest;
    for (const auto& n : wanted)
      if (!found.count(n)) rest.insert(n);
    if (!rest.empty()) ScanSymbols(h.elf(), symtab, nullptr, rest, &found);
  }
  for (const auto& [name, c] : found) (*out)[name] = c.loc;
  return Status::Ok();
}

Status IsDynamicallyLinked(const std::string& path, bool* dynamic) {
  ElfHandle h;
  Status st = h.Open(path);
  if (!st.ok()) return st;
  size_t n = 0;
  if (elf_getphdrnum(h.elf(), &n) != 0) return Status::InvalidArgument(path + ": no program headers");
  *dynamic = false;
  for (size_t i = 0; i < n; ++i) {
    GElf_Phdr ph;
    if (gelf_getphdr(h.elf(), static_cast<int>(i), &ph) && ph.p_type == PT_INTERP) *dynamic = true;
  }
  return Status::Ok();
}

bool HasDefinedSymbol(const std::string& path, const std::string& name) {
  ElfHandle h;
  if (!h.Open(path).ok()) return false;
  for (Elf_Scn* scn = elf_nextscn(h.elf(), nullptr); scn; scn = elf_nextscn(h.elf(), scn)) {
    GElf_Shdr sh;
    if (!gelf_getshdr(scn, &sh) || (sh.sh_type != SHT_DYNSYM && sh.sh_type != SHT_SYMTAB) || sh.sh_entsize == 0)
      continue;
    Elf_Data* data = elf_getdata(scn, nullptr);
    if (!data) continue;
    const size_t count = sh.sh_size / sh.sh_entsize;
    for (size_t i = 0; i < count; ++i) {
      GElf_Sym sym;
      if (!gelf_getsym(data, static_cast<int>(i), &sym) || sym.st_shndx == SHN_UNDEF) continue;
      const char* sym_name = elf_strptr(h.elf(), sh.sh_link, sym.st_name);
      if (sym_name && name == sym_name) return true;
    }
  }
  return false;
}

}  // namespace seer::recorder
