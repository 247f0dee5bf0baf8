// Loader for seer_sync.bpf.c: rodata, ring buffer size, attach by offset.
#include "recorder/ebpf/sync_probes.h"

#include <bpf/bpf.h>
#include <bpf/btf.h>
#include <bpf/libbpf.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <map>
#include <set>
#include <thread>

#include "recorder/ebpf/tracefs.h"
#include "recorder/elf_file.h"
#include "recorder/recorder.h"
#include "seer_sync.skel.h"

namespace seer::recorder {

const std::vector<ProbeSpec>& SyncProbeSpecs() {
  static const std::vector<ProbeSpec> specs = {
      {"pthread_mutex_lock", SEER_OP_ACQ_EXCL, false},
      {"pthread_mutex_trylock", SEER_OP_TRY_EXCL, true},
      {"pthread_mutex_timedlock", SEER_OP_TIMED_EXCL, true},
      {"pthread_mutex_clocklock", SEER_OP_TIMED_EXCL, true},
      {"pthread_mutex_unlock", SEER_OP_RELEASE, false},
      {"pthread_rwlock_rdlock", SEER_OP_ACQ_SHARED, false},
      {"pthread_rwlock_tryrdlock", SEER_OP_TRY_SHARED, true},
      {"pthread_rwlock_timedrdlock", SEER_OP_TIMED_SHARED, true},
      {"pthread_rwlock_clockrdlock", SEER_OP_TIMED_SHARED, true},
      {"pthread_rwlock_wrlock", SEER_OP_ACQ_EXCL, false},
      {"pthread_rwlock_trywrlock", SEER_OP_TRY_EXCL, true},
      {"pthread_rwlock_timedwrlock", SEER_OP_TIMED_EXCL, true},
      {"pthread_rwlock_clockwrlock", SEER_OP_TIMED_EXCL, true},
      {"pthread_rwlock_unlock", SEER_OP_RELEASE, false},
      {"pthread_spin_lock", SEER_OP_ACQ_EXCL, false},
      {"pthread_spin_trylock", SEER_OP_TRY_EXCL, true},
      {"pthread_spin_unlock", SEER_OP_RELEASE, false},
      {"pthread_cond_wait", SEER_OP_COND_WAIT, true},
      {"pthread_cond_timedwait", SEER_OP_COND_WAIT, true},
      {"pthread_cond_clockwait", SEER_OP_COND_WAIT, true},
      {"pthread_cond_signal", SEER_OP_COND_SIGNAL, false},
      {"pthread_cond_broadcast", SEER_OP_COND_SIGNAL, false},
      {"sem_init", SEER_OP_SEM_INIT, false},
      {"sem_wait", SEER_OP_SEM_WAIT, true},
      {"sem_trywait", SEER_OP_SEM_WAIT, true},
      {"sem_timedwait", SEER_OP_SEM_WAIT, true},
      {"sem_clockwait", SEER_OP_SEM_WAIT, true},
      {"sem_post", SEER_OP_SEM_POST, false},
      {"pthread_barrier_init", SEER_OP_BARRIER_INIT, false},
      {"pthread_barrier_wait", SEER_OP_BARRIER_WAIT, true},
      {"pthread_create", SEER_OP_CREATE, true},
      {"pthread_join", SEER_OP_JOIN, true},
      {"pthread_tryjoin_np", SEER_OP_JOIN, true},
      {"pthread_timedjoin_np", SEER_OP_JOIN, true},
      {"pthread_clockjoin_np", SEER_OP_JOIN, true},
  };
  return specs;
}

namespace {

// The kernel's ENOTSUPP (not in user-space errno.h): an instruction uprobes cannot handle.
constexpr int kKernelENotSupp = 524;

int QuietPrint(enum libbpf_print_level level, const char* fmt, va_list args) {
  if (level != LIBBPF_WARN || getenv("SEER_BPF_DEBUG") == nullptr) return 0;
  return vfprintf(stderr, fmt, args);
}

uint64_t RoundUpPow2(uint64_t v) {
  uint64_t p = static_cast<uint64_t>(sysconf(_SC_PAGESIZE));
  while (p < v) p <<= 1;
  return p;
}

Status AttachError(const std::string& what, int err) {
  std::string msg = "cannot attach " + what + ": " + strerror(err);
  if (err == EPERM || err == EACCES) {
    Status privileges = CheckRecordPrivileges();
    if (!privileges.ok()) return privileges;
    // Refused although the privileges are there: something above them said no.
    return Status::Permission("the kernel refused " + what + " (" + strerror(err) +
                              ") although seer has root or CAP_BPF and CAP_PERFMON: a seccomp policy (container "
                              "runtimes' default profiles refuse bpf()), a security module or kernel lockdown "
                              "forbids it");
  }
  if (err == ESRCH) return Status::NotFound("the target process exited before seer could attach (" + msg + ")");
  return Status::IOError(msg);
}

// x86-64 uprobes refuse a lock-prefixed first instruction, and glibc's
// pthread_spin_lock starts with `lock decl (%rdi); jne spin`. The instruction after
// the jne runs exactly when the lock was taken, with %rdi and the return address
// unchanged: probe there instead. Returns false for any other code.
bool SpinLockAcquireOffset(const std::string& binary, uint64_t entry, uint64_t* offset) {
  static const unsigned char kPrologue[] = {0xf0, 0xff, 0x0f, 0x75};
  unsigned char code[sizeof(kPrologue)] = {};
  FILE* f = fopen(binary.c_str(), "rbe");
  if (!f) return false;
  bool ok = fseek(f, static_cast<long>(entry), SEEK_SET) == 0 && fread(code, 1, sizeof(code), f) == sizeof(code);
  fclose(f);
  if (!ok || memcmp(code, kPrologue, sizeof(kPrologue)) != 0) return false;
  *offset = entry + 5;
  return true;
}

// BPF_LINK_CREATE for a uprobe_multi link (Linux 6.6): one link for many
// uprobes in one file, with a cookie each. Spelled out here because the
// installed <linux/bpf.h> (Debian 12's 6.1 headers) and libbpf 1.1 predate it;
// the layout is the kernel's `link_create` member of union bpf_attr.
constexpr uint32_t kAttachUprobeMulti = 48;  // BPF_TRACE_UPROBE_MULTI
constexpr uint32_t kUprobeMultiReturn = 1;   // BPF_F_UPROBE_MULTI_RETURN
struct UprobeMultiLinkAttr {
  uint32_t prog_fd;
  uint32_t target_fd;
  uint32_t attach_type;
  uint32_t flags;
  uint64_t path;
  uint64_t offsets;
  uint64_t ref_ctr_offsets;
  uint64_t cookies;
  uint32_t cnt;
  uint32_t multi_flags;
  uint32_t pid;
  uint32_t unused;
};

// One uprobe_multi link of `prog` on `offsets` of `path` for process `pid`;
// its fd, or -1 with errno set.
int CreateUprobeMultiLink(const bpf_program* prog, const std::string& path, const std::vector<uint64_t>& offsets,
                          const std::vector<uint64_t>& cookies, pid_t pid, bool on_return) {
  UprobeMultiLinkAttr attr = {};
  attr.prog_fd = static_cast<uint32_t>(bpf_program__fd(prog));
  attr.attach_type = kAttachUprobeMulti;
  attr.path = reinterpret_cast<uint64_t>(path.c_str());
  attr.offsets = reinterpret_cast<uint64_t>(offsets.data());
  attr.cookies = reinterpret_cast<uint64_t>(cookies.data());
  attr.cnt = static_cast<uint32_t>(offsets.size());
  attr.multi_flags = on_return ? kUprobeMultiReturn : 0;
  attr.pid = static_cast<uint32_t>(pid);
  return static_cast<int>(syscall(__NR_bpf, BPF_LINK_CREATE, &attr, sizeof(attr)));
}

// A per-syscall tracepoint program (SEC("tp/CATEGORY/NAME")) on the
// tracepoint's perf event, by its id under `tracefs_dir` (tracefs.h: not
// libbpf's own look-up). Null with errno set when it cannot be attached.
bpf_link* AttachByTracefsId(bpf_program* prog, const std::string& tracefs_dir) {
  const std::string section = bpf_program__section_name(prog);
  const size_t slash = section.find('/', 3);
  if (section.rfind("tp/", 0) != 0 || slash == std::string::npos) {
    errno = EINVAL;
    return nullptr;
  }
  const int fd = OpenTracepointEvent(tracefs_dir, section.substr(3, slash - 3), section.substr(slash + 1));
  if (fd < 0) return nullptr;
  bpf_link* link = bpf_program__attach_perf_event(prog, fd);  // owns fd from here on
  if (!link) {
    const int err = errno;
    close(fd);
    errno = err;
  }
  return link;
}

// Attaches each program that needs no target address (a tracepoint; the
// per-syscall ones by their id under `tracefs_dir`) and keeps its link in
// *links; stops at the first that fails.
Status AttachEach(const std::vector<bpf_program*>& programs, const std::string& tracefs_dir,
                  std::vector<bpf_link*>* links) {
  for (bpf_program* prog : programs) {
    bpf_link* link = bpf_program__get_type(prog) == BPF_PROG_TYPE_TRACEPOINT ? AttachByTracefsId(prog, tracefs_dir)
                                                                             : bpf_program__attach(prog);
    if (!link) return AttachError(std::string("tracepoint ") + bpf_program__name(prog), errno);
    links->push_back(link);
  }
  return Status::Ok();
}

// Destroys every link in *links and empties it. Closing a uprobe's link waits
// for a kernel grace period (about 80 ms on 6.18), much of it under a global
// mutex: one after another, the 58 per-function links kept `seer record
// --sync=ebpf` alive 5.4 s after its program ended, closed from 16 threads at
// once 3.7 s (the uprobe_multi links, where the kernel has them, wait once).
void DestroyLinks(std::vector<bpf_link*>* links) {
  constexpr size_t kThreads = 16;
  const size_t n = std::min(kThreads, links->size());
  std::vector<std::thread> closers;
  for (size_t t = 1; t < n; ++t)
    closers.emplace_back([links, t, n] {
      for (size_t i = t; i < links->size(); i += n) bpf_link__destroy((*links)[i]);
    });
  for (size_t i = 0; i < links->size(); i += std::max<size_t>(n, 1)) bpf_link__destroy((*links)[i]);
  for (std::thread& c : closers) c.join();
  links->clear();
}

}  // namespace

void SyncProbes::Close() {
  if (ring_) ring_buffer__free(ring_);
  ring_ = nullptr;
  DetachSyscallPrograms();
  for (int fd : multi_link_fds_) close(fd);
  multi_link_fds_.clear();
  DestroyLinks(&links_);
  if (skel_) seer_sync_bpf__destroy(skel_);
  skel_ = nullptr;
}

bool SyncProbes::FollowProcesses(std::string* why) {
  btf* vmlinux = btf__load_vmlinux_btf();
  const bool can = vmlinux != nullptr && btf__find_by_name_kind(vmlinux, "bpf_send_signal_task", BTF_KIND_FUNC) > 0;
  btf__free(vmlinux);
  if (!can)
    *why = "this kernel cannot stop a forked process before it runs (bpf_send_signal_task, Linux 6.13 or later)";
  follow_processes_ = can;
  return can;
}

void SyncProbes::SetStopNewPrograms(bool on) {
  if (skel_ && skel_->bss) __atomic_store_n(&skel_->bss->stop_new_programs, on ? 1u : 0u, __ATOMIC_SEQ_CST);
}

bpf_program* SyncProbes::ForkProgram() const {
  return follow_processes_ ? skel_->progs.on_fork_follow : skel_->progs.on_fork;
}

bool SyncProbes::FindTracefs() {
  static constexpr const char* kRawCost =
      "the raw sys_enter/sys_exit tracepoints are used instead, which add about 240 ns to every system call on "
      "the machine while attached, not 60 ns";
  if (getenv("SEER_RAW_SYSCALL_TRACEPOINTS") != nullptr) {
    tracefs_note_ = std::string("not looked for (SEER_RAW_SYSCALL_TRACEPOINTS is set): ") + kRawCost;
    return false;
  }
  Status st = FindOrMountTracefs(&tracefs_);
  if (!st.ok()) {
    tracefs_note_ = st.message() + ": " + kRawCost;
    return false;
  }
  tracefs_note_ = tracefs_.Describe() + ": the per-syscall tracepoints are used";
  return true;
}

Status SyncProbes::Load(pid_t tgid, uint64_t ringbuf_bytes) {
  skel_ = seer_sync_bpf__open();
  if (!skel_) return AttachError("BPF object", errno);
  skel_->rodata->targ_tgid = static_cast<uint32_t>(tgid);
  ringbuf_bytes_ = RoundUpPow2(ringbuf_bytes);
  // Wake the reader when a quarter of the buffer waits; otherwise it polls on a timer.
  skel_->rodata->wakeup_bytes = ringbuf_bytes_ / 4;
  if (bpf_map__set_max_entries(skel_->maps.events, static_cast<uint32_t>(ringbuf_bytes_)) != 0)
    return Status::InvalidArgument("ring buffer size " + std::to_string(ringbuf_bytes) + " is not usable");
  // Loaded whatever the kernel: older ones ignore a kprobe program's attach
  // type at load and refuse only the link (AttachUprobesAtOnce falls back).
  for (bpf_program* p : {skel_->progs.sync_enter_multi, skel_->progs.sync_return_multi})
    bpf_program__set_expected_attach_type(p, static_cast<bpf_attach_type>(kAttachUprobeMulti));
  // One set of system-call programs is loaded: the per-syscall tracepoints
  // where tracefs has them, mounted where it is not (a quarter of the raw
  // ones' cost to every system call on the machine), else the raw ones.
  // One of the two fork programs: the one that can stop a child needs a kfunc older kernels lack.
  bpf_program__set_autoload(skel_->progs.on_fork, !follow_processes_);
  bpf_program__set_autoload(skel_->progs.on_fork_follow, follow_processes_);
  raw_syscalls_ = !FindTracefs();
  for (bpf_program* p :
       {skel_->progs.futex_enter, skel_->progs.futex_exit, skel_->progs.futex_waitv_exit, skel_->progs.on_mmap_exit})
    bpf_program__set_autoload(p, !raw_syscalls_);
  for (bpf_program* p : {skel_->progs.futex_enter_raw, skel_->progs.futex_exit_raw, skel_->progs.futex_waitv_exit_raw,
                         skel_->progs.on_mmap_exit_raw})
    bpf_program__set_autoload(p, raw_syscalls_);
  if (seer_sync_bpf__load(skel_) != 0) {
    int err = errno;
    if (err == EPERM || err == EACCES) return AttachError("the BPF programs", err);
    return Status::IOError(std::string("cannot load the BPF programs: ") + strerror(err));
  }
  return Status::Ok();
}

Status SyncProbes::OpenFutexOnly(pid_t tgid, uint64_t ringbuf_bytes) {
  libbpf_set_print(QuietPrint);
  Status st = Load(tgid, ringbuf_bytes);
  if (!st.ok()) return st;
  // on_exit forgets a thread's registration when it ends (tids are reused).
  st = AttachTracepointsAndOpenRing({skel_->progs.on_exit});
  return st.ok() ? AttachSyscallPrograms() : st;
}

void SyncProbes::DetachSyscallPrograms() { DestroyLinks(&syscall_links_); }

std::vector<bpf_program*> SyncProbes::FutexPrograms() const {
  if (raw_syscalls_)
    return {skel_->progs.futex_enter_raw, skel_->progs.futex_exit_raw, skel_->progs.futex_waitv_exit_raw};
  return {skel_->progs.futex_enter, skel_->progs.futex_exit, skel_->progs.futex_waitv_exit};
}

bpf_program* SyncProbes::MmapProgram() const {
  return raw_syscalls_ ? skel_->progs.on_mmap_exit_raw : skel_->progs.on_mmap_exit;
}

Status SyncProbes::AttachSyscallPrograms() {
  if (!syscall_links_.empty()) return Status::Ok();
  Status st = AttachEach(FutexPrograms(), tracefs_.dir, &syscall_links_);
  if (!st.ok()) DetachSyscallPrograms();  // all or none
  return st;
}

Status SyncProbes::RegisterCounter(pid_t tid, uint64_t address) {
  const uint32_t key = static_cast<uint32_t>(tid);
  if (bpf_map__update_elem(skel_->maps.access_counters, &key, sizeof(key), &address, sizeof(address), BPF_ANY) != 0)
    return Status::IOError("registering thread " + std::to_string(tid) + "'s counter: " + strerror(errno));
  return Status::Ok();
}

Status SyncProbes::AttachTracepointsAndOpenRing(const std::vector<bpf_program*>& programs) {
  Status st = AttachEach(programs, tracefs_.dir, &links_);
  if (!st.ok()) return st;
  ring_ = ring_buffer__new(bpf_map__fd(skel_->maps.events), &SyncProbes::OnRecord, this, nullptr);
  if (!ring_) return Status::IOError(std::string("cannot open the ring buffer: ") + strerror(errno));
  return Status::Ok();
}

bool SyncProbes::AttachUprobesAtOnce(pid_t tgid, const std::string& binary,
                                     const std::map<std::string, FunctionLocation>& where) {
  if (getenv("SEER_PER_FUNCTION_UPROBES") != nullptr) {
    uprobe_links_note_ = "one per function (SEER_PER_FUNCTION_UPROBES is set)";
    return false;
  }
  // Two names can be one function (glibc aliases); one probe per address.
  std::vector<uint64_t> entries, entry_ops, returns, return_ops;
  std::vector<std::string> names, absent;
  std::set<uint64_t> seen;
  for (const auto& spec : SyncProbeSpecs()) {
    auto it = where.find(spec.symbol);
    if (it == where.end()) {
      absent.push_back(spec.symbol);
      continue;
    }
    const uint64_t off = it->second.file_offset;
    if (!seen.insert(off).second) continue;
    uint64_t inner = 0;
    const bool spin = spec.op == SEER_OP_ACQ_EXCL && !spec.on_return && SpinLockAcquireOffset(binary, off, &inner);
    entries.push_back(spin ? inner : off);
    entry_ops.push_back(static_cast<uint64_t>(spec.op));
    if (spec.on_return) {
      returns.push_back(off);
      return_ops.push_back(static_cast<uint64_t>(spec.op));
    }
    names.push_back(spec.symbol);
  }
  const int entry_fd = CreateUprobeMultiLink(skel_->progs.sync_enter_multi, binary, entries, entry_ops, tgid, false);
  const int return_fd = entry_fd < 0 || returns.empty() ? -1
                                                        : CreateUprobeMultiLink(skel_->progs.sync_return_multi, binary,
                                                                                returns, return_ops, tgid, true);
  if (entry_fd < 0 || (!returns.empty() && return_fd < 0)) {
    const int err = errno;
    if (entry_fd >= 0) close(entry_fd);
    // Linux before 6.6 (EINVAL), or a function the kernel cannot probe
    // (ENOTSUPP, EINVAL): one link per function finds out which.
    uprobe_links_note_ = std::string("one per function (a uprobe_multi link was refused: ") + strerror(err) + ")";
    return false;
  }
  multi_link_fds_.push_back(entry_fd);
  if (return_fd >= 0) multi_link_fds_.push_back(return_fd);
  uprobes_ += entries.size() + returns.size();
  attached_.insert(attached_.end(), names.begin(), names.end());
  missing_.insert(missing_.end(), absent.begin(), absent.end());
  uprobe_links_note_ = "uprobe_multi";
  return true;
}

Status SyncProbes::AttachUprobesOneByOne(pid_t tgid, const std::string& binary,
                                         const std::map<std::string, FunctionLocation>& where) {
  // Two names can be one function (glibc aliases); one probe per address.
  std::set<uint64_t> done_entry, done_return;
  for (const auto& spec : SyncProbeSpecs()) {
    auto it = where.find(spec.symbol);
    if (it == where.end()) {
      missing_.push_back(spec.symbol);
      continue;
    }
    uint64_t off = it->second.file_offset;
    if (!done_entry.insert(off).second) continue;
    LIBBPF_OPTS(bpf_uprobe_opts, opts, .bpf_cookie = static_cast<uint64_t>(spec.op), .retprobe = false);
    bpf_link* link = bpf_program__attach_uprobe_opts(skel_->progs.sync_enter, tgid, binary.c_str(), off, &opts);
    uint64_t inner = 0;
    if (!link && errno == kKernelENotSupp && spec.op == SEER_OP_ACQ_EXCL && !spec.on_return &&
        SpinLockAcquireOffset(binary, off, &inner))
      link = bpf_program__attach_uprobe_opts(skel_->progs.sync_enter, tgid, binary.c_str(), inner, &opts);
    if (!link) {
      int err = errno;
      // An instruction uprobes cannot step over: go without this one function.
      if (err == kKernelENotSupp || err == EINVAL) {
        missing_.push_back(std::string(spec.symbol) + " (cannot be probed: " + std::to_string(err) + ")");
        continue;
      }
      return AttachError(std::string("uprobe on ") + spec.symbol, err);
    }
    links_.push_back(link);
    ++uprobes_;
    if (spec.on_return && done_return.insert(off).second) {
      LIBBPF_OPTS(bpf_uprobe_opts, ropts, .bpf_cookie = static_cast<uint64_t>(spec.op), .retprobe = true);
      link = bpf_program__attach_uprobe_opts(skel_->progs.sync_return, tgid, binary.c_str(), off, &ropts);
      if (!link) return AttachError(std::string("uretprobe on ") + spec.symbol, errno);
      links_.push_back(link);
      ++uprobes_;
    }
    attached_.push_back(spec.symbol);
  }
  return Status::Ok();
}

Status SyncProbes::Open(pid_t tgid, const std::string& binary, uint64_t ringbuf_bytes,
                        const std::string& runtime_binary) {
  libbpf_set_print(QuietPrint);
  std::vector<std::string> names;
  for (const auto& s : SyncProbeSpecs()) names.push_back(s.symbol);
  std::map<std::string, FunctionLocation> where;
  Status st = ResolveFunctions(binary, names, &where);
  if (!st.ok()) return st.WithContext("reading symbols");
  if (!where.count("pthread_mutex_lock") || !where.count("pthread_create"))
    return Status::NotFound("no pthread symbols found in " + binary +
                            " (a static binary must keep its symbol table: do not strip it)");

  st = Load(tgid, ringbuf_bytes);
  if (!st.ok()) return st;

  if (!AttachUprobesAtOnce(tgid, binary, where)) {
    st = AttachUprobesOneByOne(tgid, binary, where);
    if (!st.ok()) return st;
  }
  if (!runtime_binary.empty()) {
    // Attached before the target runs, like the others: the main thread
    // registers from the runtime's constructor.
    const std::string name = "__seer_register_access_counter";
    std::map<std::string, FunctionLocation> reg;
    st = ResolveFunctions(runtime_binary, {name}, &reg);
    if (!st.ok()) return st.WithContext("reading symbols of " + runtime_binary);
    if (!reg.count(name))
      return Status::NotFound(runtime_binary + " carries the seer runtime but not " + name +
                              " (rebuild it with this version of seer-cc / seer-c++)");
    LIBBPF_OPTS(bpf_uprobe_opts, opts, .retprobe = false);
    bpf_link* link = bpf_program__attach_uprobe_opts(skel_->progs.register_counter, tgid, runtime_binary.c_str(),
                                                     reg[name].file_offset, &opts);
    if (!link) return AttachError("uprobe on " + name, errno);
    links_.push_back(link);
    ++uprobes_;
    attached_.push_back(name);
  }
  std::vector<bpf_program*> programs = FutexPrograms();
  programs.insert(programs.end(), {ForkProgram(), skel_->progs.on_exit, skel_->progs.on_exec, MmapProgram()});
  return AttachTracepointsAndOpenRing(programs);
}

int SyncProbes::OnRecord(void* ctx, void* data, size_t size) {
  auto* self = static_cast<SyncProbes*>(ctx);
  if (size < sizeof(sync_event) || !self->fn_) return 0;
  sync_event e;
  memcpy(&e, data, sizeof(e));
  (*self->fn_)(e);
  return 0;
}

Status SyncProbes::Poll(int timeout_ms, const std::function<void(const sync_event&)>& fn) {
  fn_ = &fn;
  int n = ring_buffer__poll(ring_, timeout_ms);
  // Records submitted without a wakeup do not end the wait; take them all now.
  if (n >= 0) n = ring_buffer__consume(ring_);
  fn_ = nullptr;
  if (n < 0 && n != -EINTR) return Status::IOError(std::string("ring buffer: ") + strerror(-n));
  return Status::Ok();
}

std::array<uint64_t, SEER_EV_KIND_SLOTS> SyncProbes::Lost() const {
  std::array<uint64_t, SEER_EV_KIND_SLOTS> total{};
  if (!skel_) return total;
  int ncpus = libbpf_num_possible_cpus();
  if (ncpus <= 0) return total;
  std::vector<uint64_t> per_cpu(static_cast<size_t>(ncpus));
  int fd = bpf_map__fd(skel_->maps.lost);
  for (uint32_t k = 0; k < SEER_EV_KIND_SLOTS; ++k) {
    if (bpf_map_lookup_elem(fd, &k, per_cpu.data()) != 0) continue;
    for (uint64_t v : per_cpu) total[k] += v;
  }
  return total;
}

}  // namespace seer::recorder
