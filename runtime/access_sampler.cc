// The CPU-time sampler of programs without hooks (access_sampler.h): the
// timer, the executable's text, the decode of the interrupted code, the tick.
#include "runtime/access_sampler.h"

#include <Zydis/Zydis.h>
#include <dirent.h>
#include <dlfcn.h>
#include <elf.h>
#include <fcntl.h>
#include <link.h>
#include <sched.h>
#include <signal.h>
#include <sys/syscall.h>
#include <sys/utsname.h>
#include <time.h>
#include <ucontext.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>

#include <gnu/libc-version.h>

#include "runtime/libc_io.h"
#include "runtime/rt_state.h"
#include "runtime/signal_chain.h"
#include "runtime/watchpoints.h"

namespace seer::rt {
namespace {

// The timer's value in its traps: this, plus the kernel tid of the thread it
// ticks for (the watch slots use 0x5ee2'0000'0000'0000 + slot).
constexpr uint64_t kSamplerMagic = 0x5ee2'5a3d'0000'0000ull;
constexpr uint64_t kSamplerTidMask = 0xffff'ffffull;
// Ticks per budget gap (access_sampler.h), and the shortest period.
constexpr uint64_t kTicksPerGap = 32;
constexpr uint64_t kMinPeriodNs = 500000;
// Instructions looked at from the interrupted one for a plain access, and how
// far into its function an interrupted pc may be for the one before it to be
// decoded (from the function's start: a few microseconds at most).
constexpr int kMaxScan = 16;
constexpr uint64_t kMaxBackBytes = 4096;
// Single steps of a walk (access_sampler.h) before it gives up: a hash or a
// request's arithmetic between two loads, or the rest of a pthread call that
// the runtime records (some 120 steps back from a tick in one, measured here).
constexpr int kMaxSteps = 1024;
constexpr uint64_t kTrapFlag = 0x100;         // EFLAGS.TF
constexpr uint64_t kLostWalkNs = 1000000000;  // far longer than kMaxSteps traps take
// Accesses this close above the stack pointer (or in the red zone below it)
// are taken for the thread's own stack.
constexpr uint64_t kStackAbove = 256 * 1024;
constexpr uint64_t kRedZone = 128;

struct TextRange {
  uint64_t begin;
  uint64_t end;
};
constexpr int kMaxTextRanges = 8;
TextRange g_text[kMaxTextRanges];
int g_text_count = 0;

ZydisDecoder g_decoder;
uint64_t g_period_ns = 0;  // 0: the sampler is off
// The kernel's id of the calling thread's timer (SamplerThreadStarts), -1 for none.
__thread int tls_timer_id = -1;
// The thread whose first tick gave this TLS block its ring (AttachAtTick), 0
// for none: a thread that shares the block (made by a raw clone() before an
// attach) is never sampled into that ring.
__thread int32_t tls_tick_tid = 0;
// Walks under way in all threads (the trap flag set in one): a detach gives
// SIGTRAP back only once none is (SamplerStop).
std::atomic<int32_t> g_walks{0};
// The thread's walk: steps left (0: none under way), when it began (by the
// clock and by the thread's CPU clock), and the thread's CPU clock before
// which it takes no sample or walk (the last walk's charge to the budget; 0:
// none). In CPU time, not wall time: a walk costs the thread CPU, and a
// server's thread that sleeps most of the time would otherwise spend far more
// than the budget of its CPU on walks.
__thread int tls_steps_left = 0;
__thread uint64_t tls_walk_began_ns = 0;
__thread uint64_t tls_walk_began_cpu_ns = 0;
__thread uint64_t tls_walk_paid_at_cpu_ns = 0;
ShmHeader* g_shm = nullptr;

// Every timer the sampler made, by thread: a thread deletes its own as it
// ends, a detach deletes those left (the threads that ran at an attach never
// end through the runtime). Under a spin lock that no signal handler takes
// (the runtime's pthread_mutex_lock is an interposer that records): thread
// starts and ends and the detach are all that touch it.
struct ThreadTimer {
  int32_t tid;  // 0: a free entry
  int32_t id;   // the kernel's timer id
};
constexpr int kMaxTimers = 4096;
ThreadTimer g_timers[kMaxTimers];
int g_timers_used = 0;  // entries at and past this one are free
std::atomic<bool> g_timers_locked{false};

class TimersLock {
 public:
  TimersLock() {
    while (g_timers_locked.exchange(true, std::memory_order_acquire)) sched_yield();
  }
  ~TimersLock() { g_timers_locked.store(false, std::memory_order_release); }
  TimersLock(const TimersLock&) = delete;
  TimersLock& operator=(const TimersLock&) = delete;
};

void NoteFunctionTable(uint64_t hdr);

// The executable's executable segments, and its table of function starts:
// dl_iterate_phdr lists it first.
int NoteExecutableText(dl_phdr_info* info, size_t, void*) {
  for (int i = 0; i < info->dlpi_phnum && g_text_count < kMaxTextRanges; ++i) {
    const ElfW(Phdr)& ph = info->dlpi_phdr[i];
    if (ph.p_type == PT_GNU_EH_FRAME) NoteFunctionTable(info->dlpi_addr + ph.p_vaddr);
    if (ph.p_type != PT_LOAD || (ph.p_flags & PF_X) == 0) continue;
    const uint64_t begin = info->dlpi_addr + ph.p_vaddr;
    g_text[g_text_count++] = {begin, begin + ph.p_memsz};
  }
  return 1;  // the executable only
}

const TextRange* TextAt(uint64_t pc) {
  for (int i = 0; i < g_text_count; ++i)
    if (pc >= g_text[i].begin && pc < g_text[i].end) return &g_text[i];
  return nullptr;
}

// The code a walk may pass through on its way to the program's next access:
// the runtime's own (its interposers, where a program whose synchronisation
// is recorded spends most ticks) and libc's (the pthread calls they make, and
// the program's own short calls). Anywhere else (libevent, libstdc++, the
// vDSO) a walk ends: a server's time in such libraries ends in a system call
// more often than back in its code, and the walks that found nothing cost the
// budget the samples would have had (memcached took fewer samples at a higher
// cost when walks went everywhere). Only a tick in the runtime's code starts a
// walk from outside the executable's.
struct PassRange {
  uint64_t begin;
  uint64_t end;
  bool runtime;  // libseer_rt.so's, rather than libc's
};
constexpr int kMaxPassRanges = 8;
PassRange g_pass[kMaxPassRanges];
int g_pass_count = 0;
uint64_t g_runtime_base = 0, g_libc_base = 0;  // load addresses (dladdr)

int NotePassThroughText(dl_phdr_info* info, size_t, void*) {
  const bool runtime = info->dlpi_addr == g_runtime_base;
  if (!runtime && info->dlpi_addr != g_libc_base) return 0;
  for (int i = 0; i < info->dlpi_phnum && g_pass_count < kMaxPassRanges; ++i) {
    const ElfW(Phdr)& ph = info->dlpi_phdr[i];
    if (ph.p_type != PT_LOAD || (ph.p_flags & PF_X) == 0) continue;
    const uint64_t begin = info->dlpi_addr + ph.p_vaddr;
    g_pass[g_pass_count++] = {begin, begin + ph.p_memsz, runtime};
  }
  return 0;
}

void NotePassThrough() {
  Dl_info where;
  if (dladdr(reinterpret_cast<void*>(&SamplerStart), &where) != 0)
    g_runtime_base = reinterpret_cast<uint64_t>(where.dli_fbase);
  // A libc function the runtime does not interpose.
  if (dladdr(reinterpret_cast<void*>(&gnu_get_libc_version), &where) != 0)
    g_libc_base = reinterpret_cast<uint64_t>(where.dli_fbase);
  if (g_runtime_base != 0 || g_libc_base != 0) dl_iterate_phdr(NotePassThroughText, nullptr);
}

const PassRange* PassAt(uint64_t pc) {
  for (int i = 0; i < g_pass_count; ++i)
    if (pc >= g_pass[i].begin && pc < g_pass[i].end) return &g_pass[i];
  return nullptr;
}

// The 16 general registers' index (0-15) for any of their widths, -1 for
// anything else (rip, segment and vector registers).
int GeneralIndex(ZydisRegister reg) {
  const ZydisRegister r = ZydisRegisterGetLargestEnclosing(ZYDIS_MACHINE_MODE_LONG_64, reg);
  if (r >= ZYDIS_REGISTER_RAX && r <= ZYDIS_REGISTER_R15) return static_cast<int>(r - ZYDIS_REGISTER_RAX);
  return -1;
}

// A general register's value in the signal's context (Zydis orders them rax,
// rcx, rdx, rbx, rsp, rbp, rsi, rdi, r8..r15).
uint64_t GeneralValue(int index, const mcontext_t& m) {
  static constexpr int kGreg[16] = {REG_RAX, REG_RCX, REG_RDX, REG_RBX, REG_RSP, REG_RBP, REG_RSI, REG_RDI,
                                    REG_R8,  REG_R9,  REG_R10, REG_R11, REG_R12, REG_R13, REG_R14, REG_R15};
  return static_cast<uint64_t>(m.gregs[kGreg[index]]);
}

bool EndsStraightLine(const ZydisDecodedInstruction& ins) {
  switch (ins.meta.category) {
    case ZYDIS_CATEGORY_COND_BR:
    case ZYDIS_CATEGORY_UNCOND_BR:
    case ZYDIS_CATEGORY_CALL:
    case ZYDIS_CATEGORY_RET:
    case ZYDIS_CATEGORY_SYSCALL:
    case ZYDIS_CATEGORY_SYSRET:
    case ZYDIS_CATEGORY_INTERRUPT:
    case ZYDIS_CATEGORY_SYSTEM: return true;
    default: return false;
  }
}

// An instruction whose memory access is never sampled: atomic (a lock
// prefix; xchg with memory locks implicitly), a string instruction, or a
// branch through memory (the PLT's jump reads the GOT, a call a vtable: code
// pointers the loader writes, not the program's data).
bool NeverSampled(const ZydisDecodedInstruction& ins) {
  switch (ins.meta.category) {
    case ZYDIS_CATEGORY_STRINGOP:
    case ZYDIS_CATEGORY_CALL:
    case ZYDIS_CATEGORY_UNCOND_BR:
    case ZYDIS_CATEGORY_COND_BR: return true;
    default: break;
  }
  return (ins.attributes & ZYDIS_ATTRIB_HAS_LOCK) != 0 || ins.mnemonic == ZYDIS_MNEMONIC_XCHG;
}

struct Access {
  uint64_t addr;
  uint64_t size;
  uint64_t pc;  // the instruction after it, as a hook's return address and a trap's pc are
  bool write;
};

// The executable's .eh_frame_hdr search table (mapped with the program, and
// kept by strip): sorted (function start, FDE) pairs relative to the header,
// which give the start of the function around any pc.
const uint8_t* g_eh_hdr = nullptr;
const int32_t* g_fde_table = nullptr;
uint32_t g_fde_count = 0;

void NoteFunctionTable(uint64_t hdr) {
  const auto* h = reinterpret_cast<const uint8_t*>(hdr);
  // version 1; eh_frame_ptr pcrel|sdata4; fde_count udata4; table datarel|sdata4:
  // what GNU ld and lld write. Anything else: no previous-instruction samples.
  if (h[0] != 1 || h[1] != 0x1b || h[2] != 0x03 || h[3] != 0x3b) return;
  uint32_t count;
  __builtin_memcpy(&count, h + 8, sizeof(count));
  g_eh_hdr = h;
  g_fde_table = reinterpret_cast<const int32_t*>(h + 12);
  g_fde_count = count;
}

// The start of the function that holds `pc`, 0 when unknown.
uint64_t FunctionStart(uint64_t pc) {
  if (g_fde_count == 0) return 0;
  const int64_t rel = static_cast<int64_t>(pc - reinterpret_cast<uint64_t>(g_eh_hdr));
  uint32_t lo = 0, hi = g_fde_count;  // the last entry whose start is <= pc
  while (hi - lo > 1) {
    const uint32_t mid = lo + (hi - lo) / 2;
    if (g_fde_table[2 * mid] <= rel)
      lo = mid;
    else
      hi = mid;
  }
  if (g_fde_table[2 * lo] > rel) return 0;
  return reinterpret_cast<uint64_t>(g_eh_hdr) + static_cast<int64_t>(g_fde_table[2 * lo]);
}

bool Decode(uint64_t pc, ZydisDecodedInstruction* ins, ZydisDecodedOperand* ops) {
  const TextRange* text = TextAt(pc);
  if (text == nullptr) return false;
  const uint64_t room = text->end - pc;
  return ZYAN_SUCCESS(ZydisDecoderDecodeFull(&g_decoder, reinterpret_cast<const void*>(pc),
                                             room < ZYDIS_MAX_INSTRUCTION_LENGTH ? room : ZYDIS_MAX_INSTRUCTION_LENGTH,
                                             ins, ops));
}

// The instruction about to run at `pc` in any code (a walk on its way back
// into the executable's): it is mapped, since the thread runs it next, and
// Zydis reads no byte past the instruction's own.
bool DecodeAnywhere(uint64_t pc, ZydisDecodedInstruction* ins, ZydisDecodedOperand* ops) {
  return ZYAN_SUCCESS(
      ZydisDecoderDecodeFull(&g_decoder, reinterpret_cast<const void*>(pc), ZYDIS_MAX_INSTRUCTION_LENGTH, ins, ops));
}

// The general registers an instruction writes (a bit per GeneralIndex).
uint32_t WrittenRegisters(const ZydisDecodedInstruction& ins, const ZydisDecodedOperand* ops) {
  uint32_t written = 0;
  for (uint8_t k = 0; k < ins.operand_count; ++k) {
    if (ops[k].type != ZYDIS_OPERAND_TYPE_REGISTER || (ops[k].actions & ZYDIS_OPERAND_ACTION_MASK_WRITE) == 0) continue;
    const int r = GeneralIndex(ops[k].reg.value);
    if (r >= 0) written |= 1u << r;
  }
  return written;
}

enum class Found { kAccess, kNone, kUnknownAddress };

// The plain access of instruction `ins` (which ends at `next`) whose address
// the registers in `m` tell, none of `written` having changed since.
Found PlainAccess(const ZydisDecodedInstruction& ins, const ZydisDecodedOperand* ops, uint64_t next,
                  const mcontext_t& m, uint32_t written, Access* out) {
  if (NeverSampled(ins) || ins.address_width != 64) return Found::kNone;
  for (uint8_t k = 0; k < ins.operand_count_visible; ++k) {
    const ZydisDecodedOperand& op = ops[k];
    if (op.type != ZYDIS_OPERAND_TYPE_MEMORY || op.mem.type != ZYDIS_MEMOP_TYPE_MEM) continue;
    if (op.mem.segment == ZYDIS_REGISTER_FS || op.mem.segment == ZYDIS_REGISTER_GS) return Found::kNone;  // TLS
    const int base = GeneralIndex(op.mem.base), index = GeneralIndex(op.mem.index);
    if ((base >= 0 && ((written >> base) & 1) != 0) || (index >= 0 && ((written >> index) & 1) != 0))
      return Found::kUnknownAddress;  // computed from a register changed since
    uint64_t addr = static_cast<uint64_t>(op.mem.disp.value);
    if (op.mem.base == ZYDIS_REGISTER_RIP)
      addr += next;
    else if (base >= 0)
      addr += GeneralValue(base, m);
    else if (op.mem.base != ZYDIS_REGISTER_NONE)
      return Found::kNone;
    if (index >= 0) addr += GeneralValue(index, m) * op.mem.scale;
    const uint64_t sp = static_cast<uint64_t>(m.gregs[REG_RSP]);
    if (op.mem.base == ZYDIS_REGISTER_RSP || (addr + kRedZone >= sp && addr < sp + kStackAbove))
      return Found::kNone;  // the thread's own stack
    const uint64_t bytes = op.size / 8;
    if (bytes == 0) return Found::kNone;
    *out = {addr, bytes < 8 ? bytes : 8, next, (op.actions & ZYDIS_OPERAND_ACTION_MASK_WRITE) != 0};
    return Found::kAccess;
  }
  return Found::kNone;
}

// The instruction that ended at the interrupted pc: a timer interrupt is
// taken once the instruction under way retires, so a slow access (a cache
// miss, a line another core holds) is most often the one just before the pc.
// Decoded from its function's start (x86 cannot be decoded backwards). Its
// access sampled after it ran is still unordered with any write made during
// the hold: the thread does nothing in between.
bool PreviousAccess(const mcontext_t& m, Access* out) {
  const uint64_t pc = static_cast<uint64_t>(m.gregs[REG_RIP]);
  const uint64_t start = FunctionStart(pc);
  if (start == 0 || start >= pc || pc - start > kMaxBackBytes) return false;
  ZydisDecodedInstruction ins;
  ZydisDecodedOperand ops[ZYDIS_MAX_OPERAND_COUNT];
  uint64_t at = start;
  while (true) {
    if (!Decode(at, &ins, ops)) return false;
    const uint64_t next = at + ins.length;
    if (next == pc) break;
    if (next > pc) return false;  // pc is not an instruction boundary of this decode
    at = next;
  }
  return PlainAccess(ins, ops, pc, m, WrittenRegisters(ins, ops), out) == Found::kAccess;
}

// The first plain access in straight-line code from the interrupted
// instruction whose address the registers still tell (no instruction before
// it wrote its base or index register).
bool NextAccess(const mcontext_t& m, Access* out) {
  uint64_t pc = static_cast<uint64_t>(m.gregs[REG_RIP]);
  uint32_t written = 0;  // general registers written by the instructions passed
  for (int n = 0; n < kMaxScan; ++n) {
    ZydisDecodedInstruction ins;
    ZydisDecodedOperand ops[ZYDIS_MAX_OPERAND_COUNT];
    if (!Decode(pc, &ins, ops)) return false;
    const uint64_t next = pc + ins.length;
    const Found found = PlainAccess(ins, ops, next, m, written, out);
    if (found == Found::kAccess) return true;
    if (found == Found::kUnknownAddress || EndsStraightLine(ins)) return false;
    written |= WrittenRegisters(ins, ops);
    pc = next;
  }
  return false;
}

// An instruction the walk must not step: a system call (the kernel would
// see the trap flag: a clone()'s child would start with it, in a thread that
// walks nothing), or one that moves the flags through memory (pushf would
// store the trap flag, popf or iret could set it again behind the walk).
// Reading the time stamp counter is stepped: the runtime's appends and the
// vDSO's clock_gettime do, on the way back from a tick in an interposer.
bool EndsWalk(const ZydisDecodedInstruction& ins) {
  if (ins.mnemonic == ZYDIS_MNEMONIC_RDTSC || ins.mnemonic == ZYDIS_MNEMONIC_RDTSCP) return false;
  switch (ins.meta.category) {
    case ZYDIS_CATEGORY_SYSCALL:
    case ZYDIS_CATEGORY_SYSRET:
    case ZYDIS_CATEGORY_INTERRUPT:
    case ZYDIS_CATEGORY_SYSTEM: return true;
    default: break;
  }
  switch (ins.mnemonic) {
    case ZYDIS_MNEMONIC_PUSHF:
    case ZYDIS_MNEMONIC_PUSHFD:
    case ZYDIS_MNEMONIC_PUSHFQ:
    case ZYDIS_MNEMONIC_POPF:
    case ZYDIS_MNEMONIC_POPFD:
    case ZYDIS_MNEMONIC_POPFQ:
    case ZYDIS_MNEMONIC_IRET:
    case ZYDIS_MNEMONIC_IRETD:
    case ZYDIS_MNEMONIC_IRETQ: return true;
    default: return false;
  }
}

// The calling thread's CPU time (a system call: as a walk begins and ends, and
// at a tick while its charge is being paid off).
uint64_t ThreadCpuNs() {
  timespec t;
  if (clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t) != 0) return 0;
  return static_cast<uint64_t>(t.tv_sec) * 1000000000u + static_cast<uint64_t>(t.tv_nsec);
}

// Ends the calling thread's walk: the trap flag off in the context it returns
// to, and the walk's CPU time (its traps included) charged to the budget
// (access_sampler.h).
void EndWalk(mcontext_t& m) {
  m.gregs[REG_EFL] &= ~static_cast<greg_t>(kTrapFlag);
  tls_steps_left = 0;
  g_walks.fetch_sub(1);
  const uint64_t cpu = ThreadCpuNs();
  const uint64_t spent = cpu > tls_walk_began_cpu_ns ? cpu - tls_walk_began_cpu_ns : 0;
  tls_walk_paid_at_cpu_ns = cpu + spent * 1000 / g_watch.budget_permille;
}

// What the handler may do in the interrupted thread: it has a ring, is not in
// one of the program's signal handlers, and the runtime is not attaching it
// (access_sampler.h, rule 2).
bool MaySample(const ThreadSlot& slot) {
  return slot.state != nullptr && *slot.state != nullptr && slot.vars->signal_depth == 0 && !slot.vars->attaching;
}

// Zydis calls memcpy and memset, which the runtime interposes and records:
// the thread's state is hidden while the handler decodes and holds (as
// ThreadStack hides it), so the decoder's own copies are not taken for the
// program's; errno is the program's again afterwards.
class HiddenState {
 public:
  explicit HiddenState(const ThreadSlot& slot)
      : slot_(slot), ts_(*slot.state), attaching_(slot.vars->attaching), errno_(errno) {
    *slot_.state = nullptr;
    slot_.vars->attaching = true;
  }
  ~HiddenState() {
    errno = errno_;
    slot_.vars->attaching = attaching_;
    *slot_.state = ts_;
  }
  HiddenState(const HiddenState&) = delete;
  HiddenState& operator=(const HiddenState&) = delete;
  ThreadState* state() const { return ts_; }

 private:
  const ThreadSlot& slot_;
  ThreadState* const ts_;
  const bool attaching_;  // the interrupted code's (a walk on its way back may be in the runtime's attach)
  const int errno_;
};

uint64_t PeriodNs() {
  const uint64_t p = g_watch.min_gap_ns / kTicksPerGap;
  return p < kMinPeriodNs ? kMinPeriodNs : p;
}

// The CPU clock of thread `tid` of this process (the kernel's
// MAKE_THREAD_CPUCLOCK(tid, CPUCLOCK_SCHED), what pthread_getcpuclockid gives
// for a pthread_t): a thread's timer on it need not be made by that thread.
clockid_t ThreadCpuClock(int32_t tid) { return static_cast<clockid_t>((~static_cast<uint32_t>(tid) << 3) | 6u); }

// A POSIX timer on thread `tid`'s CPU clock that sends it SIGTRAP every
// g_period_ns: 0 and its kernel id, or timer_create's or timer_settime's errno.
int MakeTimer(int32_t tid, int* out) {
  sigevent ev = {};
  ev.sigev_notify = SIGEV_THREAD_ID;
  ev.sigev_signo = SIGTRAP;
  ev.sigev_value.sival_ptr = reinterpret_cast<void*>(kSamplerMagic | static_cast<uint32_t>(tid));
  ev._sigev_un._tid = tid;
  // The kernel's own timer id (the system call, not glibc's wrapper, which
  // keeps a table of its own for SIGEV_THREAD).
  int id = -1;
  if (syscall(SYS_timer_create, ThreadCpuClock(tid), &ev, &id) != 0) return errno;
  itimerspec period = {};
  period.it_interval.tv_sec = static_cast<time_t>(g_period_ns / 1000000000);
  period.it_interval.tv_nsec = static_cast<long>(g_period_ns % 1000000000);
  period.it_value = period.it_interval;
  if (syscall(SYS_timer_settime, id, 0, &period, nullptr) != 0) {
    const int err = errno;
    syscall(SYS_timer_delete, id);
    return err;
  }
  *out = id;
  return 0;
}

// Thread `tid`'s timer, kept in the table: 0 and its id, EEXIST when the
// thread has one, ESRCH when the sampler stopped, or why not (ENOSPC: the
// table is full; else MakeTimer's errno), counted in sampler_untimed.
int AddTimer(int32_t tid, int* out) {
  TimersLock lock;
  if (g_period_ns == 0) return ESRCH;
  int free_entry = g_timers_used;
  for (int i = 0; i < g_timers_used; ++i) {
    if (g_timers[i].tid == tid) return EEXIST;
    if (g_timers[i].tid == 0 && free_entry == g_timers_used) free_entry = i;
  }
  const int err = free_entry == kMaxTimers ? ENOSPC : MakeTimer(tid, out);
  if (err != 0) {
    g_shm->sampler_untimed.fetch_add(1, std::memory_order_relaxed);
    return err;
  }
  g_timers[free_entry] = {tid, *out};
  if (free_entry == g_timers_used) ++g_timers_used;
  return 0;
}

// Calls `fn(tid)` for every thread of the process, read from /proc/self/task
// with getdents64 (no allocation). False when the directory cannot be read.
template <typename Fn>
bool ForEachThread(Fn fn) {
  const int dir = LibcOpen("/proc/self/task", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (dir < 0) return false;
  alignas(8) char buf[4096];
  for (;;) {
    const long n = syscall(SYS_getdents64, dir, buf, sizeof(buf));
    if (n <= 0) break;
    for (long at = 0; at < n;) {
      const auto* e = reinterpret_cast<const dirent64*>(buf + at);
      at += e->d_reclen;
      int32_t tid = 0;
      const char* c = e->d_name;
      for (; *c >= '0' && *c <= '9'; ++c) tid = tid * 10 + (*c - '0');
      if (*c == '\0' && tid > 0) fn(tid);  // not "." and ".."
    }
  }
  LibcClose(dir);
  return true;
}

// Attached: a timer for every thread of the process. 0 when at least one was
// made, else the first refusal's errno. A thread that ends meanwhile
// (ESRCH, EINVAL) is not one.
int TimeEveryThread() {
  int made = 0, first_err = 0;
  const bool listed = ForEachThread([&made, &first_err](int32_t tid) {
    int id = -1;
    const int err = AddTimer(tid, &id);
    if (err == 0 || err == EEXIST)
      ++made;
    else if (first_err == 0 && err != ESRCH && err != EINVAL)
      first_err = err;
  });
  if (!listed) return errno;
  return made > 0 ? 0 : (first_err != 0 ? first_err : ESRCH);
}

// True when a tick of a deleted timer may still be delivered: a thread has
// SIGTRAP pending (it blocks signals, or has not run since), and the kernel
// is older than 6.13, whose posix-timer rework drops the queued signal of a
// deleted timer when it would be delivered (checked here on 6.18: a thread
// that unblocked it under SIG_DFL lived on). Such a tick would find the
// default action, a core dump.
bool StaleTicksMayCome() {
  utsname u;
  int major = 0, minor = 0;
  if (uname(&u) == 0) {
    const char* c = u.release;
    for (; *c >= '0' && *c <= '9'; ++c) major = major * 10 + (*c - '0');
    if (*c == '.')
      for (++c; *c >= '0' && *c <= '9'; ++c) minor = minor * 10 + (*c - '0');
  }
  if (major > 6 || (major == 6 && minor >= 13)) return false;
  bool pending = false;
  const bool listed = ForEachThread([&pending](int32_t tid) {
    // /proc/self/task/TID/status, built and read by hand: the runtime's
    // string functions are interposers that record.
    char path[64] = "/proc/self/task/";
    int len = 16;
    char digits[12];
    int nd = 0;
    for (int32_t t = tid; t > 0; t /= 10) digits[nd++] = static_cast<char>('0' + t % 10);
    while (nd > 0) path[len++] = digits[--nd];
    for (const char* c = "/status"; *c != '\0'; ++c) path[len++] = *c;
    path[len] = '\0';
    char text[2048];
    const int fd = LibcOpen(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) return;
    const ssize_t n = LibcRead(fd, text, sizeof(text));
    LibcClose(fd);
    // "SigPnd:\t0000000000000010": the thread's pending signals, signal s at bit s-1.
    constexpr char kKey[] = "\nSigPnd:\t";
    constexpr int kKeyLen = sizeof(kKey) - 1;
    for (ssize_t at = 0; at + kKeyLen < n; ++at) {
      int k = 0;
      while (k < kKeyLen && text[at + k] == kKey[k]) ++k;
      if (k < kKeyLen) continue;
      uint64_t mask = 0;
      for (ssize_t i = at + kKeyLen; i < n; ++i) {
        const char c = text[i];
        const int v = c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10 : -1;
        if (v < 0) break;
        mask = mask << 4 | static_cast<uint64_t>(v);
      }
      if ((mask >> (SIGTRAP - 1) & 1) != 0) pending = true;
      break;
    }
  });
  return !listed || pending;
}

// A thread the runtime has not seen (it ran before an attach, and made no
// call that would attach it): its ring now, when only the watches record,
// for the samples this tick and the next may take. Nothing else writes to it
// (the interposers forward under --sync=none), so a tick may open it: no
// append of the thread's can be half-way. With the synchronisation recorded
// the thread starts at its next pthread call instead (AttachThreadAtSyncCall:
// a lock it holds was taken unseen), and is not sampled before.
bool AttachAtTick(const ThreadSlot& slot, int32_t tid) {
  ThreadVars* vars = slot.vars;
  if (!g_rt.watch_only || !__atomic_load_n(&g_rt.active, __ATOMIC_ACQUIRE) || vars->finished || vars->attaching ||
      vars->signal_depth != 0)
    return false;
  vars->attaching = true;
  const int errno_before = errno;
  const int32_t ring = ClaimRing(-1, kReleaseCreated);
  if (ring < 0)
    vars->finished = true;  // counted in no_ring_threads; not retried at every tick
  else
    *slot.state = StartBareThread(static_cast<uint32_t>(ring), tid, /*register_counter=*/false, 0);
  errno = errno_before;
  vars->attaching = false;
  if (ring >= 0) tls_tick_tid = tid;
  return ring >= 0;
}

}  // namespace

void SamplerStart(ShmHeader* h, bool attached) {
  g_shm = h;
  dl_iterate_phdr(NoteExecutableText, nullptr);
  NotePassThrough();
  if (g_text_count == 0 ||
      !ZYAN_SUCCESS(ZydisDecoderInit(&g_decoder, ZYDIS_MACHINE_MODE_LONG_64, ZYDIS_STACK_WIDTH_64))) {
    h->sampler_errno.store(ENOEXEC, std::memory_order_relaxed);
    return;
  }
  // The handler first: a tick may come as soon as the timer is armed.
  if (!InstallRuntimeSigtrap()) {
    h->sampler_errno.store(errno, std::memory_order_relaxed);
    return;
  }
  g_period_ns = PeriodNs();
  const int err = attached ? TimeEveryThread() : SamplerThreadStarts();
  if (err != 0) {
    g_period_ns = 0;
    h->sampler_errno.store(err, std::memory_order_relaxed);
    return;
  }
  h->sampler_period_us.store(static_cast<uint32_t>(g_period_ns / 1000), std::memory_order_relaxed);
}

int SamplerThreadStarts() {
  if (g_period_ns == 0 || tls_timer_id >= 0) return 0;
  int id = -1;
  const int err = AddTimer(static_cast<int32_t>(syscall(SYS_gettid)), &id);
  if (err == 0) tls_timer_id = id;
  return err == EEXIST ? 0 : err;
}

void SamplerThreadEnds() {
  if (tls_timer_id < 0) return;
  const int32_t tid = static_cast<int32_t>(syscall(SYS_gettid));
  {
    TimersLock lock;
    // Not there when a detach deleted it already.
    for (int i = 0; i < g_timers_used; ++i) {
      if (g_timers[i].tid != tid || g_timers[i].id != tls_timer_id) continue;
      syscall(SYS_timer_delete, g_timers[i].id);
      g_timers[i].tid = 0;
      break;
    }
  }
  tls_timer_id = -1;
}

bool SamplerStop() {
  {
    TimersLock lock;
    g_period_ns = 0;  // no thread starts a timer again (AddTimer looks under the lock)
    for (int i = 0; i < g_timers_used; ++i) {
      if (g_timers[i].tid == 0) continue;
      syscall(SYS_timer_delete, g_timers[i].id);
      g_timers[i].tid = 0;
    }
    g_timers_used = 0;
  }
  // g_watch.on is off already: a walking thread ends its walk at its next
  // step, and no tick starts one (SamplerTrap counts a walk before it looks).
  // A walk takes a few milliseconds; one that has not ended in two seconds
  // belongs to a thread that is stopped, or left a handler by siglongjmp.
  const uint64_t deadline = NowNs() + 2000000000ull;
  while (g_walks.load() > 0 && NowNs() < deadline) {
    const timespec pause = {0, 1000000};
    SleepUnrecorded(&pause, nullptr);
  }
  return g_walks.load() <= 0 && !StaleTicksMayCome();
}

bool SamplerTrap(uint64_t sig_data, void* context) {
  if ((sig_data & ~kSamplerTidMask) != kSamplerMagic) return false;
  const auto tid = static_cast<int32_t>(sig_data & kSamplerTidMask);
  ShmHeader* h = g_shm;
  if (h == nullptr || !__atomic_load_n(&g_watch.on, __ATOMIC_RELAXED)) return true;
  h->sampler_ticks.fetch_add(1, std::memory_order_relaxed);
  const uint64_t now = NowNs();
  // The walk under way is this gap's sample; one that stopped trapping (the
  // program left a signal handler by siglongjmp, which does not restore the
  // flags) is given up after a while.
  if (tls_steps_left > 0) {
    if (now - tls_walk_began_ns < kLostWalkNs) return true;
    tls_steps_left = 0;
    g_walks.fetch_sub(1);
  }
  if (tls_walk_paid_at_cpu_ns != 0) {  // the last walk's charge, in the thread's CPU time
    if (ThreadCpuNs() < tls_walk_paid_at_cpu_ns) return true;
    tls_walk_paid_at_cpu_ns = 0;
  }
  if (tls_watch_last_ns != 0 && now - tls_watch_last_ns < g_watch.min_gap_ns) return true;
  ThreadSlot slot = CurrentSlot();
  if (slot.state != nullptr && *slot.state == nullptr && !AttachAtTick(slot, tid)) return true;
  if (tls_tick_tid != 0 && tls_tick_tid != tid) return true;  // another thread's ring (AttachAtTick)
  if (!MaySample(slot)) return true;
  mcontext_t& m = static_cast<ucontext_t*>(context)->uc_mcontext;
  // Out of the executable's code, in the runtime's (the pthread calls it
  // records, where a program that synchronises a lot spends most ticks):
  // nothing of the program's own to decode, but a walk follows the thread
  // back into its code. Anywhere else, no sample.
  const uint64_t pc = static_cast<uint64_t>(m.gregs[REG_RIP]);
  const bool in_text = TextAt(pc) != nullptr;
  if (!in_text) {
    const PassRange* pass = PassAt(pc);
    if (pass == nullptr || !pass->runtime) {
      h->sampler_misses.fetch_add(1, std::memory_order_relaxed);
      return true;
    }
  }
  if (in_text) {
    HiddenState hidden(slot);
    Access a;
    if (PreviousAccess(m, &a) || NextAccess(m, &a)) {
      tls_watch_last_ns = now;
      WatchHold(hidden.state(), a.addr, a.size, a.write, a.pc, /*careful=*/true);
      return true;
    }
  }
  // No access in reach of the decode: walk to the next (access_sampler.h).
  // Counted before the switch is looked at again, so that a detach that
  // turned it off meanwhile either sees the walk or is seen here.
  g_walks.fetch_add(1);
  if (!__atomic_load_n(&g_watch.on, __ATOMIC_SEQ_CST)) {
    g_walks.fetch_sub(1);
    return true;
  }
  h->sampler_walks.fetch_add(1, std::memory_order_relaxed);
  tls_steps_left = kMaxSteps;
  tls_walk_began_ns = now;
  tls_walk_began_cpu_ns = ThreadCpuNs();
  m.gregs[REG_EFL] |= static_cast<greg_t>(kTrapFlag);
  return true;
}

bool SamplerStep(void* context) {
  if (tls_steps_left <= 0) return false;
  ShmHeader* h = g_shm;
  h->sampler_steps.fetch_add(1, std::memory_order_relaxed);
  mcontext_t& m = static_cast<ucontext_t*>(context)->uc_mcontext;
  const uint64_t pc = static_cast<uint64_t>(m.gregs[REG_RIP]);
  ThreadSlot slot = CurrentSlot();
  if (!__atomic_load_n(&g_watch.on, __ATOMIC_RELAXED) || slot.state == nullptr) {
    EndWalk(m);
    h->sampler_misses.fetch_add(1, std::memory_order_relaxed);
    return true;
  }
  if (TextAt(pc) == nullptr) {
    // Out of the executable's code: in libc, or in the runtime's interposer
    // where the tick came, perhaps halfway an append. The walk follows the
    // thread back into the executable's code, decoding only (the state
    // hidden from the interposers of Zydis's memset), and never samples out
    // here (rule 2). In other code it ends (PassRange).
    HiddenState hidden(slot);
    ZydisDecodedInstruction ins;
    ZydisDecodedOperand ops[ZYDIS_MAX_OPERAND_COUNT];
    if (PassAt(pc) == nullptr || !DecodeAnywhere(pc, &ins, ops) || EndsWalk(ins) || --tls_steps_left <= 0) {
      EndWalk(m);
      h->sampler_misses.fetch_add(1, std::memory_order_relaxed);
    }
    return true;
  }
  // Where the handler may not sample: the walk ends without a sample.
  if (!MaySample(slot)) {
    EndWalk(m);
    h->sampler_misses.fetch_add(1, std::memory_order_relaxed);
    return true;
  }
  HiddenState hidden(slot);
  ZydisDecodedInstruction ins;
  ZydisDecodedOperand ops[ZYDIS_MAX_OPERAND_COUNT];
  Access a;
  // The instruction about to run, its address from the registers as they are.
  const bool decoded = Decode(pc, &ins, ops);
  if (decoded && PlainAccess(ins, ops, pc + ins.length, m, /*written=*/0, &a) == Found::kAccess) {
    EndWalk(m);
    h->sampler_walk_samples.fetch_add(1, std::memory_order_relaxed);
    tls_watch_last_ns = NowNs();
    WatchHold(hidden.state(), a.addr, a.size, a.write, a.pc, /*careful=*/true);
    return true;
  }
  if (!decoded || EndsWalk(ins) || --tls_steps_left <= 0) {
    EndWalk(m);
    h->sampler_misses.fetch_add(1, std::memory_order_relaxed);
  }
  return true;
}

void SamplerForgetInChild() {
  // A fork's child has no timers (POSIX timers are not inherited): it is not
  // sampled, and its threads start none. Its one thread walks nothing (fork
  // is a system call, which ends a walk).
  tls_timer_id = -1;
  tls_steps_left = 0;
  tls_walk_paid_at_cpu_ns = 0;  // the parent's clock
  tls_tick_tid = 0;
  g_period_ns = 0;
  g_timers_used = 0;
  g_timers_locked.store(false, std::memory_order_relaxed);
  g_walks.store(0, std::memory_order_relaxed);
}

}  // namespace seer::rt
