// The recorder as a library: one recording of one target into one trace file,
// in either mode, with one lifecycle for every front end (`seer record`, the
// long-running service): Start, then Poll until it says the recording is over
// (or Stop), then Finish, which closes the trace. Counters can be read between
// polls. Nothing here parses a command line or installs a signal handler: the
// front end owns both.
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "seer/status.h"
#include "seer/trace.h"

namespace seer::recorder {

// How a recording sees synchronisation (docs/recording.md, the modes):
//   kEbpf    uprobes and tracepoints, on any binary, launched or running; a
//            program built with seer's wrappers adds its accesses from the rings
//   kInproc  the seer runtime inside the target records everything itself
//   kPreload a dynamically linked program not built with seer's wrappers,
//            launched with libseer_rt.so in LD_PRELOAD: the runtime's pthread,
//            semaphore and allocation interposers record its synchronisation
//            (no uprobes, no privileges); raw futex syscalls are not seen
//   kInject  a running dynamically linked process (-p PID): the runtime is
//            loaded into it (ptrace, dlopen) and its calls redirected to the
//            interposers until the detach (recorder/runtime_modes/); then as kPreload
enum class RecordMode { kEbpf, kInproc, kPreload, kInject };
std::string_view RecordModeName(RecordMode mode);

// kEbpf only.
struct EbpfOptions {
  uint64_t ringbuf_bytes = 8ull << 20;
  // How late a record may reach user space after a later-stamped one (records are
  // stamped before they are reserved, on several CPUs).
  uint64_t reorder_window_ns = 20'000'000;
  // A target built with seer's runtime: also drain its rings (accesses,
  // atomics, alloc/free, calls) and place them among the sync events by the
  // stamps the probes read from each thread's ring head. In attach mode the
  // rings are laid out in the runtime's attach point (recorder/rings/attach_point.h).
  bool runtime = false;
};

// kInproc, kPreload and kInject.
struct InprocOptions {
  uint32_t max_rings = 1024;         // threads recorded at once (a ring is reused once its thread ended)
  uint64_t ring_words = 1ull << 19;  // 8-byte words per thread ring (4 MiB), a power of two
  uint64_t wait_ns = 2000000000ull;  // a producer waits this long for room before dropping
  // Ring contents copied out but not yet merged are held in memory up to this
  // bound; beyond it the collector pauses and the target waits for room (it
  // then runs at the recorder's speed; nothing is dropped unless the recorder
  // makes no room for wait_ns). 16 bytes per access: 1 GiB holds 64M accesses.
  // 0: DefaultSpoolBytes().
  uint64_t max_spool_bytes = 0;
  // Each recorded release carries how long its lock was held (ns, in its aux):
  // two clock reads per lock pair in the target. The service turns them into
  // seer_lock_hold_seconds; `seer record` leaves them off.
  bool lock_hold_times = false;
  // --watch: races caught in the act by sampled hardware watchpoints
  // (runtime/watchpoints.h). Accesses of a thread between its first samples
  // (0: no watchpoints); how long a sampled thread is held, in microseconds;
  // the share of a thread's time it may be held, in thousandths (--watch=PERCENT):
  // the runtime lengthens or shortens each thread's period to keep within it.
  uint32_t watch_period = 0;
  uint32_t watch_delay_us = 1000;
  uint32_t watch_budget_permille = 20;
  // --sync=none: no synchronisation and no access is recorded, only threads'
  // starts and ends and the races the watchpoints catch (every ring paused).
  bool sync_none = false;
  // While the target runs, merging and encoding run under SCHED_IDLE: on CPU
  // time no one else wants, so that a target using every core is not slowed by
  // them; the spool absorbs the difference. When the spool passes 3/4 of its
  // bound they run at normal priority until it is back under 1/4, and from the
  // target's exit on. False: normal priority throughout.
  bool merge_when_idle = true;
  // The background priority of merge_when_idle: -1 for SCHED_IDLE, 0 to 19 for
  // SCHED_OTHER at that nice level (a share of the CPU while the target keeps
  // every core busy). SEER_MERGE_NICE in the environment overrides it.
  int idle_nice = -1;
  // > 0: the merged events are handed on to the writer at least this often
  // (AsyncTraceWriter otherwise passes them in batches of thousands), so that
  // the service's windows (daemon/) hold the events of their time.
  double flush_interval_s = 0;
  // A thread's segment of plain records that repeats its last one word for
  // word is handed to the writer as a repeat (RingMerger::RunSink): not
  // decoded, counted or encoded event by event again. The trace is the same
  // either way. SEER_REPEAT_RUNS=0 in the environment turns it off too.
  bool repeat_runs = true;
  // Two encoder threads: with the merger, three threads share the work of
  // closing the trace once the target has exited (bench/runtime/README.md).
  // zstd level 1, not the writer's 3: on memcached's events it compresses in
  // two thirds of the time for a trace a tenth larger, and a recorder's CPU is
  // taken from the service it records (docs/recording.md has the figures).
  // No distinct counts (count_distinct): their set lookups were a large share
  // of the recorder's time on memcached; `seer info` counts them.
  TraceWriterOptions writer{.zstd_level = 1, .encode_threads = 2, .count_distinct = false};
  // Also load the futex tracepoints (root, or CAP_BPF and CAP_PERFMON), for
  // futex calls the program makes without libc's syscall(), which the runtime
  // records itself (runtime/interpose_futex.cc). Off by default: while they
  // are attached every system call of every process on the machine takes the
  // kernel's tracing slow path, 2-8% of memcached's throughput here
  // (docs/recording.md).
  bool futex_tracepoints = false;
  // kPreload: the runtime library put in the target's LD_PRELOAD (after the
  // user's own entries); kInject: the one loaded into the process. Empty:
  // FindRuntimeLibrary().
  std::string runtime_library;
  // kInproc and kPreload: the socket on which the program's processes ask for
  // rings of their own (runtime_modes/process_family.h); empty: they do not.
  std::string children_socket;
};

struct RecordOptions {
  RecordMode mode = RecordMode::kEbpf;
  std::string output = "run.seer";
  std::vector<std::string> command;  // launch: argv of the target (argv[0] looked up in PATH)
  pid_t pid = 0;                     // attach (kEbpf, kInject) when > 0
  double duration_s = 0;             // attach: stop after this long (0: no limit)
  EbpfOptions ebpf;
  InprocOptions inproc;
  // Where the events go. Empty: a trace file at `output`. Set: the writer it
  // makes instead (the service's windowed writer, daemon/, cuts the
  // stream into one trace file per window); called once, from Start.
  std::function<Status(const TraceWriterOptions&, std::unique_ptr<TraceWriter>*)> open_writer;
};

// The trace writer a recording writes to: options.open_writer's, else a file at options.output.
Status OpenRecordingWriter(const RecordOptions& options, const TraceWriterOptions& writer_options,
                           std::unique_ptr<TraceWriter>* out);

// What a recording has written so far; updated by Poll.
struct RecordCounters {
  uint64_t events = 0;   // events ordered into the trace so far
  uint64_t lost = 0;     // events known lost so far (all are counted in the trace at Finish)
  uint64_t threads = 0;  // threads seen
};

struct RecordResult {
  RecordMode mode = RecordMode::kEbpf;
  bool target_exited = false;  // false: attach mode detached from a process that runs on
  int exit_code = -1;          // the target's exit code, when it exited
  int term_signal = 0;         // the signal that killed it, 0 if none
  uint64_t events = 0;
  uint64_t lost = 0;
  uint64_t threads = 0;
  // The runtime recorded (kInproc), or drained its rings (kEbpf with options.ebpf.runtime).
  bool runtime_seen = false;
  // kEbpf with the runtime: why the runtime's accesses are missing (empty when they are not).
  std::string runtime_note;
  // --watch: what the watchpoints did (runtime_modes/watch_summary.h); empty without.
  std::string watch;
  // Uprobes the recording attached (kInproc and kPreload: none).
  uint64_t uprobes = 0;
  // --futex-tracepoints asked for and lost during the recording: why (the
  // futex syscalls the program issued itself after that are not in the trace).
  std::string futex_failure;
  // The system-call programs (kEbpf; --futex-tracepoints) sit on the raw
  // sys_enter/sys_exit tracepoints: why, and what that costs (empty when they
  // use the per-syscall ones, or none were loaded).
  std::string raw_syscalls_note;
  // The target called exec: the trace ends there (the new program is not recorded).
  bool exec_not_followed = false;
  // Launched kInproc and kPreload: the other processes of the program's
  // family, each recorded into a trace of its own (runtime_modes/process_family.h),
  // and the processes seen that could not be recorded, each with why.
  struct ProcessTrace {
    pid_t pid = 0;
    pid_t parent = 0;
    bool forked = false;  // else exec'd
    std::string output;
    uint64_t events = 0;
    uint64_t lost = 0;
    uint64_t threads = 0;
    std::string error;  // the trace could not be completed: why (empty when it was)
    std::string note;   // what the trace lacks though complete (kEbpf: a runtime's accesses)
  };
  std::vector<ProcessTrace> processes;
  std::vector<std::string> unrecorded_processes;
  std::string exec_program;  // what it executed, when /proc still told
  // kInproc: the costs `bench/runtime` reports.
  double wall_seconds = 0;        // from start to the target's exit
  double drain_seconds = 0;       // from the target's exit until the trace was closed
  uint64_t spool_peak_bytes = 0;  // most ring data held between collection and merge
  long max_rss_kb = 0;            // the target's peak resident set
  double target_cpu_seconds = 0;  // the target's user + system time

  // What `seer record` exits with for a launched target: its exit code, or
  // 128 + the signal that killed it.
  int ExitStatus() const { return term_signal != 0 ? 128 + term_signal : exit_code; }
};

// Poll, Finish and counters() are called from one thread; Stop from any
// thread, or from a signal handler.
class Recording {
 public:
  // Opens the trace, launches or attaches to the target and starts recording.
  // Errors: privileges (kEbpf), a program that cannot be run, a process that is
  // not there, a trace that cannot be created.
  static Status Start(const RecordOptions& options, std::unique_ptr<Recording>* out);

  virtual ~Recording() = default;

  // Moves what the target produced since the last call towards the trace,
  // waiting up to a few milliseconds for it. *running turns false once the
  // recording is over: the target exited (or exec'd), the duration ended, or
  // Stop was called in attach mode. An error means the trace cannot go on.
  virtual Status Poll(bool* running) = 0;

  // Asks the recording to end. Attach: the next Poll detaches (the process
  // runs on). Launch: the target is sent SIGTERM and decides how to end; Poll
  // goes on until it has exited. Safe to call more than once; async-signal-safe.
  virtual void Stop() = 0;

  // Closes the trace (after Poll reported the end, or after an error) and
  // fills *result. Called once.
  virtual Status Finish(RecordResult* result) = 0;

  virtual RecordCounters counters() const = 0;

  // The service's duty cycle (docs/runtime.md, "Pausing"): pauses or resumes
  // the runtime in the target, whose hooks then write nothing (thread starts
  // and ends aside). False when the mode cannot pause (kEbpf): it goes on
  // recording. Called from the thread that polls.
  virtual bool SetPaused(bool paused) {
    (void)paused;
    return false;
  }
  // After SetPaused(true): true once every event recorded before the pause has
  // been handed to the writer (the collector copied the rings a grace period
  // after the pause and the merger passed on all of it). True when not paused.
  virtual bool PauseDrained() const { return true; }

  // The process recorded (launched or attached); 0 when there is none yet.
  virtual pid_t target_pid() const { return 0; }

  // Metadata the trace is closed with, set before Finish (the processes a
  // family recording followed, runtime_modes/process_family.h). Ignored by
  // the modes that follow no process.
  virtual void AddEndMeta(const std::string& key, const std::string& value) {
    (void)key;
    (void)value;
  }
};

// RecordResult::unrecorded_processes's entry for `forks` children of process
// `pid` that a mode does not follow: "2 child processes forked by process 42 (why)".
std::string UnfollowedForks(uint64_t forks, pid_t pid, const std::string& why);

// Start, Poll until the end, Finish: one whole recording.
Status Record(const RecordOptions& options, RecordResult* result);

// Root, or CAP_BPF and CAP_PERFMON in the effective set (kEbpf needs them).
Status CheckRecordPrivileges();

// True when the ELF file at `path` carries the seer runtime (its marker
// symbol). A name without a slash is looked up in PATH, as exec would.
bool CarriesRuntime(const std::string& path);

// The mode `seer record --sync=auto` takes: -p PID -> kInject when the
// runtime can be loaded into the process (InjectedRuntime::WhyNotInjectable),
// else kEbpf (`*why_not_inject` says why, when given); a program that
// carries the runtime -> kInproc; another dynamically linked ELF program ->
// kPreload; a static one (or what is not ELF, e.g. a script) -> kEbpf.
RecordMode AutoRecordMode(const std::vector<std::string>& command, pid_t pid, std::string* why_not_inject = nullptr);

// True when the ELF file `path` (looked up in PATH without a slash) has a
// PT_INTERP segment: the loader will honour LD_PRELOAD.
bool IsDynamicExecutable(const std::string& path);

// libseer_rt.so for kPreload: $SEER_RT_LIBRARY, else next to the seer binary
// (the same folder, ../lib/seer/, ../lib/, ../runtime/), else where this build
// put it. NotFound names the places looked at.
Status FindRuntimeLibrary(std::string* path);

// LD_PRELOAD for the target: the user's `current` value (may be null) with
// `library` appended, unless it is there already.
std::string PreloadWith(const char* current, const std::string& library);

// The spool bound when none is given: a quarter of the memory available now
// (MemAvailable), between 256 MiB and 512 MiB; 1 GiB when /proc/meminfo does
// not say (runtime_modes/spool_queue.cc says why no more).
uint64_t DefaultSpoolBytes();

}  // namespace seer::recorder
