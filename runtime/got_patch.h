// Redirecting a running process's calls to the runtime's interposers (attach by
// injection, docs/recording.md): the relocation slots (GOT entries) through
// which every loaded module calls a function the runtime interposes are
// pointed at the runtime's definition, and put back at detach. The runtime is
// dlopen'ed RTLD_LOCAL, so nothing else binds to it.
#pragma once

#include <cstdint>

namespace seer::rt {

struct GotPatchResult {
  uint32_t slots = 0;    // relocation slots now pointing at the runtime
  uint32_t modules = 0;  // modules with at least one such slot
  int error = 0;         // an errno when a slot could not be made writable; nothing is patched then
};

// Redirects every JUMP_SLOT and GLOB_DAT relocation of every loaded module
// (except the runtime and the dynamic loader) whose symbol is one of the
// runtime's synchronisation or allocation interposers, and that binds to the
// very function the interposer forwards to (so a program's own wrapper, or an
// old symbol version, is left alone). Keeps each slot's previous content.
// Called once, from the thread that loaded the runtime.
GotPatchResult RedirectToRuntime();

// Puts every slot RedirectToRuntime changed back as it was. Idempotent.
void RestoreRedirected();

}  // namespace seer::rt
