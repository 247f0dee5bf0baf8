// clone(): threads made without pthread_create.
//  - CLONE_VM without CLONE_SETTLS: the child shares its creator's TLS block,
//    and so the runtime's `tls_state`. The block becomes shared
//    (shared_tls.h): creator and child each find their own state by kernel
//    tid. The child gets a ring of its own, claimed here, with a fork event
//    before it and its begin and end around the child function (rt_state.h,
//    ground rule 3).
//  - without CLONE_VM: a process with a copy of the memory and the rings'
//    shared mapping, like a fork() that runs no atfork handlers: the child
//    writes nothing.
//  - CLONE_VM with CLONE_SETTLS: a TLS block of the program's making, left
//    as it is (the runtime's variables in it are whatever the program put there).
// The child's start arguments go at the top of the child's stack: the child
// must not call malloc, whose per-thread cache the two would share.
#include <sched.h>
#include <unistd.h>

#include <cstdarg>
#include <cstdint>

#include "runtime/real_function.h"
#include "runtime/rt_state.h"
#include "runtime/shared_tls.h"

namespace seer::rt {
namespace {

using CloneFn = int (*)(int (*)(void*), void*, int, void*, ...);
RealFunction<CloneFn> real_clone("clone");

struct alignas(16) CloneArgs {
  int (*fn)(void*);
  void* arg;
  int32_t ring;       // claimed for the child, -1 for none
  int32_t glibc_tid;  // the TLS block owner's tid (ThreadState::os_tid)
  bool shared;        // the child shares its creator's TLS block
  bool recording;     // the creator recorded when it made the child
};

int CloneStart(void* p) {
  const CloneArgs args = *static_cast<CloneArgs*>(p);
  if (!args.shared) {
    ForgetRecordingInChild();
    return args.fn(args.arg);
  }
  SharedTlsThread* e = AddSharedTlsThread(KernelTid());
  if (e != nullptr) {
    if (args.ring >= 0 && __atomic_load_n(&g_rt.active, __ATOMIC_ACQUIRE))
      e->state = StartBareThread(static_cast<uint32_t>(args.ring), args.glibc_tid, /*register_counter=*/true,
                                 reinterpret_cast<uint64_t>(args.fn));
    else if (args.recording)
      e->vars.finished = true;  // no ring: counted in no_ring_threads by its creator
  }
  const int rc = args.fn(args.arg);
  // The child function returned: glibc's clone ends the thread now. A child
  // that ends itself by a raw exit system call never comes here: its ring
  // stays open until the process ends.
  if (e != nullptr) {
    FinishSlot({&e->state, &e->vars}, /*free_stack=*/false, reinterpret_cast<uint64_t>(args.fn));
    RemoveSharedTlsThread(e);
  }
  return rc;
}

}  // namespace
}  // namespace seer::rt

using namespace seer::rt;

#pragma GCC visibility push(default)
extern "C" {

int clone(int (*fn)(void*), void* stack, int flags, void* arg, ...) noexcept {
  va_list ap;
  va_start(ap, arg);
  // glibc reads all three from their registers whatever the flags say.
  void* parent_tid = va_arg(ap, void*);
  void* tls = va_arg(ap, void*);
  void* child_tid = va_arg(ap, void*);
  va_end(ap);
  const CloneFn real = real_clone.get();
  const bool vm = (flags & CLONE_VM) != 0;
  if (fn == nullptr || stack == nullptr || (vm && (flags & CLONE_SETTLS) != 0))
    return real(fn, stack, flags, arg, parent_tid, tls, child_tid);

  CloneArgs args = {fn, arg, -1, 0, vm, false};
  if (vm && ShareTlsBlock()) {
    args.glibc_tid = tls_owner_tid;
    const ThreadSlot slot = CurrentSlot();
    ThreadState* ts = nullptr;
    if (slot.state != nullptr) ts = *slot.state != nullptr ? *slot.state : AttachThreadAtSyncCall();
    if (ts != nullptr) {
      args.recording = true;
      // The child is never joined through pthread_join: its ring may go back once it ended.
      args.ring = ClaimRing(static_cast<int32_t>(ts->ring), kReleaseCreated | kReleaseJoined);
      // Before the child can run: its number precedes the child's kThreadBegin.
      if (args.ring >= 0 && g_rt.sync_inproc)
        PutOrdered(ts, seer::EventKind::kFork, 0, static_cast<uint64_t>(args.ring), 0, SEER_RT_CALLER_PC());
    }
  } else if (vm) {
    // The table is full: the child runs unrecorded, as does its creator now.
    return real(fn, stack, flags, arg, parent_tid, tls, child_tid);
  }
  // The arguments at the top of the child's stack (which grows down), kept
  // 16-byte aligned: the child reads them before its function runs.
  uintptr_t top = reinterpret_cast<uintptr_t>(stack);
  top = (top - sizeof(CloneArgs)) & ~static_cast<uintptr_t>(15);
  auto* on_stack = reinterpret_cast<CloneArgs*>(top);
  *on_stack = args;
  return real(CloneStart, on_stack, flags, on_stack, parent_tid, tls, child_tid);
}

}  // extern "C"
#pragma GCC visibility pop
