// The relocation slots of every loaded module, read from its dynamic section in
// memory (dl_iterate_phdr): DT_JMPREL (calls through the PLT) and DT_RELA
// (GLOB_DAT: -fno-plt calls, function pointers, libstdc++'s weak pthread
// references), with the symbol and, when versioned, the version each names.
#include "runtime/got_patch.h"

#include <dlfcn.h>
#include <elf.h>
#include <link.h>
#include <sys/mman.h>
#include <unistd.h>

#include <cerrno>

namespace seer::rt {
namespace {

// The runtime's string functions are interposers that record accesses: compare by hand.
bool Equal(const char* a, const char* b) {
  while (*a != '\0' && *a == *b) ++a, ++b;
  return *a == *b;
}
bool StartsWith(const char* s, const char* prefix) {
  while (*prefix != '\0' && *s == *prefix) ++s, ++prefix;
  return *prefix == '\0';
}
bool Contains(const char* s, const char* part) {
  for (; *s != '\0'; ++s)
    if (StartsWith(s, part)) return true;
  return false;
}

// What attach mode redirects: synchronisation (pthread, semaphores, C++
// static-init guards, syscall() for raw futex calls) and allocation; the
// descriptors as the preloaded runtime models them (interpose_fd.cc: the
// kernel's synchronisation through pipes and sockets, a close racing with a
// read) and mmap's pages (interpose_mmap.cc); and sigaction() and signal(),
// so that the program cannot take SIGTRAP from the watches' sampler
// (interpose_signal.cc). Not the memory functions (interpose_mem.cc): they
// record accesses, which only instrumented code needs.
bool Redirected(const char* name) {
  static const char* const kPrefixes[] = {"pthread_", "sem_", "__cxa_guard_", "_Znw", "_Zna", "_Zdl", "_Zda"};
  static const char* const kNames[] = {
      "malloc",  "calloc",  "realloc",  "free",       "reallocarray", "posix_memalign", "aligned_alloc", "memalign",
      "valloc",  "pvalloc", "syscall",  "sigaction",  "signal",       "read",           "write",         "pread",
      "pread64", "pwrite",  "pwrite64", "readv",      "writev",       "recv",           "recvfrom",      "recvmsg",
      "send",    "sendto",  "sendmsg",  "open",       "open64",       "openat",         "openat64",      "creat",
      "creat64", "close",   "socket",   "socketpair", "pipe",         "pipe2",          "eventfd",       "connect",
      "accept",  "accept4", "dup",      "dup2",       "dup3",         "puts",           "fputs",         "fread",
      "fwrite",  "vfork",   "mmap",     "mmap64",     "munmap",       "mremap"};
  for (const char* p : kPrefixes)
    if (StartsWith(name, p)) return true;
  for (const char* n : kNames)
    if (Equal(name, n)) return true;
  return false;
}

// The interposers that forward to a versioned libc function (interpose_pthread.cc,
// interpose_sync_lifetime.cc):
// a slot bound to the other version of these calls different code.
const char* ForwardVersion(const char* name) {
  static const char* const kVersioned[] = {"pthread_cond_signal",    "pthread_cond_broadcast", "pthread_cond_wait",
                                           "pthread_cond_timedwait", "pthread_cond_init",      "pthread_cond_destroy"};
  for (const char* n : kVersioned)
    if (Equal(name, n)) return "GLIBC_2.3.2";
  return nullptr;
}

struct Module {
  uint64_t base;
  const ElfW(Phdr) * phdr;
  uint16_t phnum;
  uint64_t relro_start, relro_end;  // the pages glibc made read-only after relocation
  uint32_t first_slot, slots;       // in g_slots
};

struct Slot {
  uint64_t* where;
  uint64_t original;     // what it held (a lazy binding's PLT stub included)
  uint64_t replacement;  // the runtime's interposer
};

constexpr uint32_t kMaxModules = 1024;
constexpr uint32_t kMaxSlots = 1u << 16;
Module g_modules[kMaxModules];
uint32_t g_module_count = 0;
Slot* g_slots = nullptr;  // mmap'ed: the allocator is among what is redirected
uint32_t g_slot_count = 0;
uint64_t g_runtime_base = 0;

int CollectModule(dl_phdr_info* info, size_t, void*) {
  if (g_module_count >= kMaxModules) return 1;
  const char* name = info->dlpi_name != nullptr ? info->dlpi_name : "";
  // Not the runtime (its own calls reach libc), not the dynamic loader, not the vDSO.
  if (info->dlpi_addr == g_runtime_base || Contains(name, "/ld-linux") || Contains(name, "linux-vdso")) return 0;
  Module m = {info->dlpi_addr, info->dlpi_phdr, info->dlpi_phnum, 0, 0, 0, 0};
  const uint64_t page = static_cast<uint64_t>(sysconf(_SC_PAGESIZE));
  for (uint16_t i = 0; i < info->dlpi_phnum; ++i) {
    const ElfW(Phdr)& ph = info->dlpi_phdr[i];
    if (ph.p_type != PT_GNU_RELRO) continue;
    m.relro_start = (info->dlpi_addr + ph.p_vaddr) & ~(page - 1);
    m.relro_end = (info->dlpi_addr + ph.p_vaddr + ph.p_memsz) & ~(page - 1);
  }
  g_modules[g_module_count++] = m;
  return 0;
}

// A dynamic-section pointer: glibc relocates them in place for ordinary modules.
template <typename T>
const T* DynPtr(const Module& m, uint64_t value) {
  return reinterpret_cast<const T*>(value < m.base ? value + m.base : value);
}

// The version a module's symbol `index` asks for (its verneed entry), or null.
const char* NeededVersion(const ElfW(Half) * versym, const char* verneed_base, uint64_t verneed_count,
                          const char* strtab, uint32_t index) {
  if (versym == nullptr || verneed_base == nullptr) return nullptr;
  const ElfW(Half) want = versym[index] & 0x7fff;
  if (want < 2) return nullptr;  // local or global: unversioned
  const char* p = verneed_base;
  for (uint64_t i = 0; i < verneed_count; ++i) {
    const auto* need = reinterpret_cast<const ElfW(Verneed)*>(p);
    const char* a = p + need->vn_aux;
    for (uint16_t j = 0; j < need->vn_cnt; ++j) {
      const auto* aux = reinterpret_cast<const ElfW(Vernaux)*>(a);
      if (aux->vna_other == want) return strtab + aux->vna_name;
      a += aux->vna_next;
    }
    p += need->vn_next;
  }
  return nullptr;
}

// The runtime's own definition of `name` when it is one of its redirected
// interposers and the module's reference binds to the definition the
// interposer stands in front of; else null.
void* Replacement(void* self, const char* name, const char* version) {
  if (!Redirected(name)) return nullptr;
  void* mine = dlsym(self, name);
  Dl_info where;
  if (mine == nullptr || dladdr(mine, &where) == 0 || reinterpret_cast<uint64_t>(where.dli_fbase) != g_runtime_base)
    return nullptr;
  const char* forward_version = ForwardVersion(name);
  void* forwarded = forward_version != nullptr ? dlvsym(RTLD_NEXT, name, forward_version) : dlsym(RTLD_NEXT, name);
  void* bound = version != nullptr ? dlvsym(RTLD_DEFAULT, name, version) : dlsym(RTLD_DEFAULT, name);
  return forwarded != nullptr && bound == forwarded ? mine : nullptr;
}

void Remember(const Module& m, uint64_t* where, void* replacement) {
  if (g_slot_count >= kMaxSlots) return;
  for (uint32_t i = m.first_slot; i < g_slot_count; ++i)
    if (g_slots[i].where == where) return;  // JMPREL and RELA can name one slot twice
  g_slots[g_slot_count++] = {where, *where, reinterpret_cast<uint64_t>(replacement)};
}

// Finds the module's slots to redirect (into g_slots, not yet written).
void FindSlots(Module* m, void* self) {
  const ElfW(Dyn)* dyn = nullptr;
  for (uint16_t i = 0; i < m->phnum; ++i)
    if (m->phdr[i].p_type == PT_DYNAMIC) dyn = reinterpret_cast<const ElfW(Dyn)*>(m->base + m->phdr[i].p_vaddr);
  if (dyn == nullptr) return;
  const ElfW(Sym)* symtab = nullptr;
  const char* strtab = nullptr;
  const ElfW(Rela)* jmprel = nullptr;
  const ElfW(Rela)* rela = nullptr;
  const ElfW(Half)* versym = nullptr;
  const char* verneed = nullptr;
  uint64_t jmprel_bytes = 0, rela_bytes = 0, verneed_count = 0, pltrel = DT_RELA;
  for (; dyn->d_tag != DT_NULL; ++dyn) {
    const uint64_t v = dyn->d_un.d_val;
    switch (dyn->d_tag) {
      case DT_SYMTAB: symtab = DynPtr<ElfW(Sym)>(*m, v); break;
      case DT_STRTAB: strtab = DynPtr<char>(*m, v); break;
      case DT_JMPREL: jmprel = DynPtr<ElfW(Rela)>(*m, v); break;
      case DT_PLTRELSZ: jmprel_bytes = v; break;
      case DT_PLTREL: pltrel = v; break;
      case DT_RELA: rela = DynPtr<ElfW(Rela)>(*m, v); break;
      case DT_RELASZ: rela_bytes = v; break;
      case DT_VERSYM: versym = DynPtr<ElfW(Half)>(*m, v); break;
      case DT_VERNEED: verneed = DynPtr<char>(*m, v); break;
      case DT_VERNEEDNUM: verneed_count = v; break;
      default: break;
    }
  }
  if (symtab == nullptr || strtab == nullptr || pltrel != DT_RELA) return;
  m->first_slot = g_slot_count;
  const ElfW(Rela) * tables[2] = {jmprel, rela};
  const uint64_t sizes[2] = {jmprel_bytes, rela_bytes};
  for (int t = 0; t < 2; ++t) {
    if (tables[t] == nullptr) continue;
    for (uint64_t i = 0; i < sizes[t] / sizeof(ElfW(Rela)); ++i) {
      const ElfW(Rela)& r = tables[t][i];
      const uint32_t type = ELF64_R_TYPE(r.r_info), index = ELF64_R_SYM(r.r_info);
      if ((type != R_X86_64_JUMP_SLOT && type != R_X86_64_GLOB_DAT) || index == 0) continue;
      const ElfW(Sym)& sym = symtab[index];
      if (sym.st_shndx != SHN_UNDEF || ELF64_ST_TYPE(sym.st_info) != STT_FUNC) continue;
      const char* name = strtab + sym.st_name;
      if (!Redirected(name)) continue;
      const char* version = NeededVersion(versym, verneed, verneed_count, strtab, index);
      void* replacement = Replacement(self, name, version);
      if (replacement != nullptr) Remember(*m, reinterpret_cast<uint64_t*>(m->base + r.r_offset), replacement);
    }
  }
  m->slots = g_slot_count - m->first_slot;
}

// Makes the module's read-only relocation pages writable (or read-only again).
int ProtectRelro(const Module& m, int prot) {
  if (m.relro_end <= m.relro_start) return 0;
  return mprotect(reinterpret_cast<void*>(m.relro_start), m.relro_end - m.relro_start, prot) == 0 ? 0 : errno;
}

// Writes each of the module's slots: the runtime's function, or back the original.
int WriteSlots(const Module& m, bool redirect) {
  if (m.slots == 0) return 0;
  if (const int err = ProtectRelro(m, PROT_READ | PROT_WRITE); err != 0) return err;
  // One aligned store each: a thread calling through the slot now sees either function.
  for (uint32_t i = m.first_slot; i < m.first_slot + m.slots; ++i)
    __atomic_store_n(g_slots[i].where, redirect ? g_slots[i].replacement : g_slots[i].original, __ATOMIC_RELEASE);
  return ProtectRelro(m, PROT_READ);
}

}  // namespace

GotPatchResult RedirectToRuntime() {
  GotPatchResult result;
  Dl_info self_info;
  if (dladdr(reinterpret_cast<void*>(&RedirectToRuntime), &self_info) == 0) {
    result.error = ENOENT;
    return result;
  }
  g_runtime_base = reinterpret_cast<uint64_t>(self_info.dli_fbase);
  void* self = dlopen(self_info.dli_fname, RTLD_LAZY | RTLD_NOLOAD);
  void* slots = mmap(nullptr, sizeof(Slot) * kMaxSlots, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (self == nullptr || slots == MAP_FAILED) {
    result.error = self == nullptr ? ENOENT : ENOMEM;
    return result;
  }
  g_slots = static_cast<Slot*>(slots);
  g_module_count = 0;
  g_slot_count = 0;
  dl_iterate_phdr(CollectModule, nullptr);
  for (uint32_t i = 0; i < g_module_count; ++i) FindSlots(&g_modules[i], self);
  for (uint32_t i = 0; i < g_module_count; ++i) {
    if (const int err = WriteSlots(g_modules[i], /*redirect=*/true); err != 0) {
      result.error = err;
      RestoreRedirected();
      return GotPatchResult{0, 0, err};
    }
    if (g_modules[i].slots > 0) ++result.modules;
  }
  result.slots = g_slot_count;
  return result;
}

void RestoreRedirected() {
  for (uint32_t i = 0; i < g_module_count; ++i) WriteSlots(g_modules[i], /*redirect=*/false);
  g_module_count = 0;
  g_slot_count = 0;
}

}  // namespace seer::rt
