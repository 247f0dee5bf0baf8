#include "predictor/symbolize/symbolizer.h"

#include <cxxabi.h>
#include <dwarf.h>
#include <elfutils/libdw.h>
#include <elfutils/libdwfl.h>
#include <fcntl.h>
#include <gelf.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>

#include "store/build_id.h"

namespace seer::predictor {

struct Symbolizer::Module {
  std::string path;  // as recorded
  // IsAtomicAt: the DIE offset of each global variable by its ELF address,
  // read from the DWARF once, on first use.
  bool variables_read = false;
  std::map<uint64_t, Dwarf_Off> variables;
  std::string build_id;  // as recorded
  struct Mapping {
    uint64_t base, size, file_offset;
  };
  std::vector<Mapping> mappings;
  bool tried = false;
  bool warned = false;
  std::string problem;         // why it cannot be used, once tried
  std::string file;            // the file used
  uint64_t bias = 0;           // run-time address - ELF address
  uint64_t low = 0, high = 0;  // run-time range of its PT_LOAD segments
  Dwfl_Module* dwfl_module = nullptr;
};

namespace {

std::string Demangle(const char* name) {
  if (name == nullptr) return std::string();
  // Only mangled names: the demangler reads "a" as the type `signed char`.
  if (name[0] != '_' || name[1] != 'Z') return name;
  int status = 0;
  char* out = abi::__cxa_demangle(name, nullptr, nullptr, &status);
  if (status != 0 || out == nullptr) return name;
  std::string s(out);
  std::free(out);
  return s;
}

// The bias of `file` when its bytes at `file_offset` are mapped at `base`, and
// the run-time range of its loadable segments. False if `file` is no ELF file
// or no segment holds that offset.
bool ComputeBias(const std::string& file, uint64_t base, uint64_t file_offset, uint64_t* bias, uint64_t* low,
                 uint64_t* high) {
  const int fd = open(file.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return false;
  elf_version(EV_CURRENT);
  Elf* elf = elf_begin(fd, ELF_C_READ, nullptr);
  bool found = false;
  size_t phnum = 0;
  if (elf != nullptr && elf_kind(elf) == ELF_K_ELF && elf_getphdrnum(elf, &phnum) == 0) {
    uint64_t lo = UINT64_MAX, hi = 0;
    for (size_t i = 0; i < phnum; ++i) {
      GElf_Phdr ph;
      if (gelf_getphdr(elf, static_cast<int>(i), &ph) == nullptr || ph.p_type != PT_LOAD) continue;
      lo = std::min<uint64_t>(lo, ph.p_vaddr);
      hi = std::max<uint64_t>(hi, ph.p_vaddr + ph.p_memsz);
      // The mapping starts at a page boundary at or below the segment's offset.
      const uint64_t page_offset = ph.p_offset & ~uint64_t{0xfff};
      if (!found && file_offset >= page_offset && file_offset < ph.p_offset + ph.p_filesz) {
        *bias = base - (ph.p_vaddr - ph.p_offset + file_offset);
        found = true;
      }
    }
    if (found) {
      *low = lo + *bias;
      *high = hi + *bias;
    }
  }
  if (elf != nullptr) elf_end(elf);
  close(fd);
  return found;
}

// The file name of the DW_AT_call_file of an inlined subroutine.
std::string CallFile(Dwarf_Die* cu, Dwarf_Die* die) {
  Dwarf_Attribute attr;
  Dwarf_Word index = 0;
  if (dwarf_attr(die, DW_AT_call_file, &attr) == nullptr || dwarf_formudata(&attr, &index) != 0) return "";
  Dwarf_Files* files = nullptr;
  size_t n = 0;
  if (dwarf_getsrcfiles(cu, &files, &n) != 0 || index >= n) return "";
  const char* name = dwarf_filesrc(files, index, nullptr, nullptr);
  return name == nullptr ? "" : name;
}

uint32_t UnsignedAttr(Dwarf_Die* die, unsigned int name) {
  Dwarf_Attribute attr;
  Dwarf_Word value = 0;
  if (dwarf_attr(die, name, &attr) == nullptr || dwarf_formudata(&attr, &value) != 0) return 0;
  return static_cast<uint32_t>(value);
}

std::string DieFunctionName(Dwarf_Die* die) {
  Dwarf_Attribute attr;
  for (unsigned int name : {DW_AT_linkage_name, DW_AT_MIPS_linkage_name}) {
    if (dwarf_attr_integrate(die, name, &attr) != nullptr) {
      const char* s = dwarf_formstring(&attr);
      if (s != nullptr) return Demangle(s);
    }
  }
  const char* s = dwarf_diename(die);
  return s == nullptr ? "" : s;
}

// Appends the DIEs under `parent` that contain `address`, outermost first.
// (dwarf_getscopes of libdw 0.188 finds no scope at all in clang 14's DWARF 5
// units; the DIE tree walked with dwarf_haspc serves both compilers.)
void ScopesAt(Dwarf_Die* parent, Dwarf_Addr address, std::vector<Dwarf_Die>* out) {
  Dwarf_Die child;
  if (dwarf_child(parent, &child) != 0) return;
  do {
    const int tag = dwarf_tag(&child);
    if (tag == DW_TAG_namespace || tag == DW_TAG_structure_type || tag == DW_TAG_class_type ||
        tag == DW_TAG_union_type) {
      // No code range of their own, but member functions may be defined inside.
      const size_t before = out->size();
      ScopesAt(&child, address, out);
      if (out->size() > before) return;
    } else if (dwarf_haspc(&child, address) > 0) {
      out->push_back(child);
      ScopesAt(&child, address, out);
      return;
    }
  } while (dwarf_siblingof(&child, &child) == 0);
}

// The subprogram containing `address` and the inlined instances in it, innermost first.
std::vector<Dwarf_Die> FunctionChain(Dwarf_Die* cu, Dwarf_Addr address) {
  std::vector<Dwarf_Die> scopes, chain;
  ScopesAt(cu, address, &scopes);
  for (auto it = scopes.rbegin(); it != scopes.rend(); ++it) {
    const int tag = dwarf_tag(&*it);
    if (tag == DW_TAG_inlined_subroutine) chain.push_back(*it);
    if (tag == DW_TAG_subprogram) {
      chain.push_back(*it);
      break;
    }
  }
  return chain;
}

// The compile unit whose code holds `address`. The .debug_aranges index that
// dwfl_module_addrdie trusts covers only the units whose compiler wrote one (gcc
// does, clang 14 does not), and may then name a wrong unit: check, and scan.
Dwarf_Die* CompileUnit(Dwfl_Module* mod, Dwarf_Addr address, Dwarf_Addr* bias) {
  Dwarf_Die* cu = dwfl_module_addrdie(mod, address, bias);
  if (cu != nullptr && dwarf_haspc(cu, address - *bias) > 0) return cu;
  cu = nullptr;
  while ((cu = dwfl_module_nextcu(mod, cu, bias)) != nullptr)
    if (dwarf_haspc(cu, address - *bias) > 0) return cu;
  return nullptr;
}

const Dwfl_Callbacks kCallbacks = {
    .find_elf = dwfl_build_id_find_elf,
    .find_debuginfo = dwfl_standard_find_debuginfo,
    .section_address = dwfl_offline_section_address,
    .debuginfo_path = nullptr,
};

}  // namespace

Symbolizer::Symbolizer(const std::vector<ModuleInfo>& modules, const SymbolizerOptions& options) : options_(options) {
  for (const ModuleInfo& info : modules) {
    Module* m = nullptr;
    for (auto& existing : modules_)
      if (existing->path == info.path) m = existing.get();
    if (m == nullptr) {
      modules_.push_back(std::make_unique<Module>());
      m = modules_.back().get();
      m->path = info.path;
      m->build_id = info.build_id;
    }
    m->mappings.push_back({info.base, info.size, info.file_offset});
  }
  dwfl_ = dwfl_begin(&kCallbacks);
}

Symbolizer::~Symbolizer() {
  if (dwfl_ != nullptr) dwfl_end(dwfl_);
}

void Symbolizer::Warn(const std::string& message) { warnings_.push_back(message); }

bool Symbolizer::Load(Module* m) {
  if (m->tried) return m->dwfl_module != nullptr;
  m->tried = true;
  namespace fs = std::filesystem;
  // Candidates: the recorded path, then the same file name in each binary dir,
  // then the separate debug file named by the build-id.
  std::vector<std::string> candidates = {m->path};
  const std::string file_name = fs::path(m->path).filename().string();
  for (const std::string& dir : options_.binary_dirs) candidates.push_back((fs::path(dir) / file_name).string());
  if (m->build_id.size() > 2)
    candidates.push_back(options_.debug_root + "/.build-id/" + m->build_id.substr(0, 2) + "/" + m->build_id.substr(2) +
                         ".debug");
  bool recorded_differs = false;
  for (size_t i = 0; i < candidates.size() && m->file.empty(); ++i) {
    std::error_code ec;
    if (!fs::is_regular_file(candidates[i], ec)) continue;
    if (!m->build_id.empty() && store::ReadBuildId(candidates[i]) != m->build_id) {
      if (i == 0) recorded_differs = true;
      continue;
    }
    m->file = candidates[i];
  }
  if (m->file.empty()) {
    m->problem = recorded_differs ? "changed since recording (build-id differs)"
                                  : "not found (moved or deleted; try --binary-dir)";
    return false;
  }
  const Module::Mapping& first = m->mappings.front();
  if (!ComputeBias(m->file, first.base, first.file_offset, &m->bias, &m->low, &m->high)) {
    m->problem = "is not an ELF file matching its mapping";
    return false;
  }
  dwfl_report_begin_add(dwfl_);
  m->dwfl_module = dwfl_report_elf(dwfl_, m->path.c_str(), m->file.c_str(), -1, m->bias, true);
  dwfl_report_end(dwfl_, nullptr, nullptr);
  if (m->dwfl_module == nullptr) m->problem = std::string("cannot be read: ") + dwfl_errmsg(-1);
  return m->dwfl_module != nullptr;
}

Symbolizer::Module* Symbolizer::ModuleFor(uint64_t address) {
  for (auto& m : modules_)
    for (const Module::Mapping& map : m->mappings)
      if (address >= map.base && address - map.base < map.size) return m.get();
  return nullptr;
}

const std::vector<Frame>& Symbolizer::Symbolize(uint64_t pc) {
  auto it = cache_.find(pc);
  if (it != cache_.end()) return it->second;
  std::vector<Frame>& frames = cache_[pc];
  Frame base;
  base.pc = pc;
  Module* m = ModuleFor(pc);
  if (m != nullptr) {
    base.module = m->path;
    for (const Module::Mapping& map : m->mappings)
      if (pc >= map.base && pc - map.base < map.size) base.offset = pc - map.base + map.file_offset;
  }
  if (m == nullptr || !Load(m)) {
    if (m != nullptr && !m->warned) {
      m->warned = true;
      Warn(m->path + " " + m->problem + "; its frames are not symbolised");
    }
    frames.push_back(base);
    return frames;
  }
  base.offset = pc - m->bias;
  // A recorded pc is a return address: the instruction it belongs to ends there.
  const Dwarf_Addr lookup = pc - 1;
  Dwfl_Module* mod = m->dwfl_module;

  std::string symbol;
  {
    GElf_Off off = 0;
    GElf_Sym sym;
    const char* name = dwfl_module_addrinfo(mod, lookup, &off, &sym, nullptr, nullptr, nullptr);
    symbol = Demangle(name);
  }
  Dwarf_Addr bias = 0;
  Dwarf_Die* cu = CompileUnit(mod, lookup, &bias);
  std::string file;
  uint32_t line = 0, column = 0;
  if (Dwarf_Line* l = cu == nullptr ? nullptr : dwarf_getsrc_die(cu, lookup - bias)) {
    int lineno = 0, col = 0;
    const char* f = dwarf_linesrc(l, nullptr, nullptr);
    if (f != nullptr) file = f;
    dwarf_lineno(l, &lineno);
    dwarf_linecol(l, &col);
    line = static_cast<uint32_t>(lineno);
    column = static_cast<uint32_t>(col);
  }
  for (Dwarf_Die& scope : cu == nullptr ? std::vector<Dwarf_Die>() : FunctionChain(cu, lookup - bias)) {
    Frame f = base;
    f.file = file;
    f.line = line;
    f.column = column;
    if (dwarf_tag(&scope) == DW_TAG_subprogram) {
      f.function = symbol.empty() ? DieFunctionName(&scope) : symbol;
      frames.push_back(f);
      break;
    }
    f.function = DieFunctionName(&scope);
    f.inlined = true;
    frames.push_back(f);
    // The enclosing frame is at the inlined call.
    file = CallFile(cu, &scope);
    line = UnsignedAttr(&scope, DW_AT_call_line);
    column = UnsignedAttr(&scope, DW_AT_call_column);
  }
  if (frames.empty() || frames.back().inlined) {
    // No DWARF subprogram (no -g, or the chain was cut): the symbol table's name.
    base.function = symbol;
    base.file = file;
    base.line = line;
    base.column = column;
    frames.push_back(base);
  }
  return frames;
}

bool Symbolizer::FindGlobal(uint64_t address, DataSymbol* out) {
  for (auto& m : modules_) {
    if (!Load(m.get()) || address < m->low || address >= m->high) continue;
    GElf_Off off = 0;
    GElf_Sym sym;
    const char* name = dwfl_module_addrinfo(m->dwfl_module, address, &off, &sym, nullptr, nullptr, nullptr);
    if (name == nullptr) return false;
    const int type = GELF_ST_TYPE(sym.st_info);
    if (type != STT_OBJECT && type != STT_TLS) return false;
    if (off >= sym.st_size && !(sym.st_size == 0 && off == 0)) return false;
    out->name = Demangle(name);
    out->address = address - off;
    out->size = sym.st_size;
    out->module = m->path;
    out->offset = out->address - m->bias;
    return true;
  }
  return false;
}

namespace {

// The variables of `die`'s children (a CU, a namespace) with a fixed address
// (DW_OP_addr), by that address; into namespaces and classes (static members).
void NoteVariables(Dwarf_Die* die, std::map<uint64_t, Dwarf_Off>* out) {
  Dwarf_Die child;
  if (dwarf_child(die, &child) != 0) return;
  do {
    const int tag = dwarf_tag(&child);
    if (tag == DW_TAG_namespace || tag == DW_TAG_structure_type || tag == DW_TAG_class_type) {
      NoteVariables(&child, out);
      continue;
    }
    if (tag != DW_TAG_variable) continue;
    Dwarf_Attribute loc;
    Dwarf_Op* ops = nullptr;
    size_t n = 0;
    if (dwarf_attr(&child, DW_AT_location, &loc) == nullptr || dwarf_getlocation(&loc, &ops, &n) != 0 || n != 1 ||
        ops[0].atom != DW_OP_addr)
      continue;
    out->emplace(ops[0].number, dwarf_dieoffset(&child));
  } while (dwarf_siblingof(&child, &child) == 0);
}

// The type `die` names, through typedefs and qualifiers; false when none.
bool StripType(Dwarf_Die* die, Dwarf_Die* out) {
  Dwarf_Attribute attr;
  Dwarf_Die t;
  if (dwarf_attr_integrate(die, DW_AT_type, &attr) == nullptr || dwarf_formref_die(&attr, &t) == nullptr) return false;
  for (int depth = 0; depth < 16; ++depth) {
    const int tag = dwarf_tag(&t);
    if (tag != DW_TAG_typedef && tag != DW_TAG_const_type && tag != DW_TAG_volatile_type) {
      *out = t;
      return true;
    }
    if (dwarf_attr_integrate(&t, DW_AT_type, &attr) == nullptr || dwarf_formref_die(&attr, &t) == nullptr) return false;
  }
  return false;
}

bool IsAtomicClassName(const char* name) {
  if (name == nullptr) return false;
  const std::string n = name;
  return n.rfind("atomic<", 0) == 0 || n == "atomic_flag" || n.rfind("__atomic_base<", 0) == 0 ||
         n.rfind("__atomic_float<", 0) == 0 || n.rfind("__atomic_ref<", 0) == 0;
}

// Whether byte `offset` of an object of type `type` (stripped) is atomic.
bool AtomicAt(Dwarf_Die* type, uint64_t offset, int depth) {
  if (depth > 16) return false;
  switch (dwarf_tag(type)) {
    case DW_TAG_atomic_type: return true;
    case DW_TAG_structure_type:
    case DW_TAG_class_type:
    case DW_TAG_union_type: {
      if (IsAtomicClassName(dwarf_diename(type))) return true;
      Dwarf_Die member;
      if (dwarf_child(type, &member) != 0) return false;
      do {
        if (dwarf_tag(&member) != DW_TAG_member && dwarf_tag(&member) != DW_TAG_inheritance) continue;
        Dwarf_Attribute attr;
        Dwarf_Word at = 0;
        if (dwarf_attr(&member, DW_AT_data_member_location, &attr) != nullptr) dwarf_formudata(&attr, &at);
        Dwarf_Die mt;
        if (!StripType(&member, &mt)) continue;
        Dwarf_Word size = 0;
        if (dwarf_aggregate_size(&mt, &size) != 0) continue;
        if (offset >= at && offset < at + size) return AtomicAt(&mt, offset - at, depth + 1);
      } while (dwarf_siblingof(&member, &member) == 0);
      return false;
    }
    case DW_TAG_array_type: {
      Dwarf_Die element;
      Dwarf_Word size = 0;
      if (!StripType(type, &element) || dwarf_aggregate_size(&element, &size) != 0 || size == 0) return false;
      return AtomicAt(&element, offset % size, depth + 1);
    }
    default: return false;
  }
}

}  // namespace

bool Symbolizer::IsAtomicAt(uint64_t address) {
  DataSymbol global;
  if (!FindGlobal(address, &global)) return false;
  Module* m = nullptr;
  for (auto& candidate : modules_)
    if (candidate->path == global.module && candidate->dwfl_module != nullptr) m = candidate.get();
  if (m == nullptr) return false;
  Dwarf_Addr bias = 0;
  Dwarf* dwarf = dwfl_module_getdwarf(m->dwfl_module, &bias);
  if (dwarf == nullptr) return false;
  if (!m->variables_read) {
    m->variables_read = true;
    Dwarf_Off off = 0, next = 0;
    size_t header = 0;
    while (dwarf_nextcu(dwarf, off, &next, &header, nullptr, nullptr, nullptr) == 0) {
      Dwarf_Die cu;
      if (dwarf_offdie(dwarf, off + header, &cu) != nullptr) NoteVariables(&cu, &m->variables);
      off = next;
    }
  }
  auto it = m->variables.find(global.address - bias);
  Dwarf_Die var, type;
  if (it == m->variables.end() || dwarf_offdie(dwarf, it->second, &var) == nullptr || !StripType(&var, &type))
    return false;
  return AtomicAt(&type, address - global.address, 0);
}

bool Symbolizer::FindTls(uint64_t image, uint64_t offset, DataSymbol* out) {
  for (auto& m : modules_) {
    if (!Load(m.get()) || image < m->low || image >= m->high) continue;
    // STT_TLS values are offsets in the module's TLS block, not addresses: no
    // address look-up finds them, so scan the symbol table (TLS races are rare).
    const int count = dwfl_module_getsymtab(m->dwfl_module);
    for (int i = 1; i < count; ++i) {
      GElf_Sym sym;
      GElf_Addr addr = 0;
      const char* name = dwfl_module_getsym_info(m->dwfl_module, i, &sym, &addr, nullptr, nullptr, nullptr);
      if (name == nullptr || GELF_ST_TYPE(sym.st_info) != STT_TLS || sym.st_shndx == SHN_UNDEF) continue;
      // sym.st_value is unadjusted: the offset.
      if (offset < sym.st_value || offset - sym.st_value >= std::max<uint64_t>(sym.st_size, 1)) continue;
      out->name = Demangle(name);
      out->address = sym.st_value;
      out->size = sym.st_size;
      out->module = m->path;
      out->offset = sym.st_value;
      return true;
    }
    return false;
  }
  return false;
}

}  // namespace seer::predictor
