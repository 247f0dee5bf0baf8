// `seer record`: the command-line front of the recorder library (recorder/recorder.h):
// the options, the choice of mode, SIGINT/SIGTERM, the summary line.
#include <signal.h>

#include <atomic>
#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include "cli/command.h"
#include "cli/commands.h"
#include "recorder/recorder.h"
#include "recorder/runtime_modes/watch_options.h"
#include "seer/ring_layout.h"

namespace seer::cli {

namespace {

// The recording a signal should end: Stop() is async-signal-safe.
std::atomic<recorder::Recording*> g_recording{nullptr};
bool g_attach = false;

void OnStopSignal(int sig) {
  // Launch mode: Ctrl-C reaches the target from the terminal already; SIGTERM
  // is passed on. Attach mode: either ends the recording, the process runs on.
  if (sig == SIGINT && !g_attach) return;
  if (recorder::Recording* r = g_recording.load()) r->Stop();
}

// Start, poll until the end (or a signal), finish. *started: Start succeeded.
Status RunRecording(const recorder::RecordOptions& options, recorder::RecordResult* result, bool* started) {
  std::unique_ptr<recorder::Recording> recording;
  Status st = recorder::Recording::Start(options, &recording);
  *started = st.ok();
  if (!st.ok()) return st;
  g_attach = options.pid > 0;
  g_recording.store(recording.get());
  struct sigaction sa = {};
  sa.sa_handler = OnStopSignal;
  sigaction(SIGINT, &sa, nullptr);
  sigaction(SIGTERM, &sa, nullptr);
  bool running = true;
  while (running && st.ok()) st = recording->Poll(&running);
  Status finished = recording->Finish(result);
  signal(SIGINT, SIG_DFL);
  signal(SIGTERM, SIG_DFL);
  g_recording.store(nullptr);
  return st.ok() ? finished : st;
}

}  // namespace

void RegisterRecord(CLI::App& app, Runner& runner) {
  struct Args {
    recorder::RecordOptions options;
    std::string sync = "auto";
    uint64_t spool_mb = 0;  // 0: DefaultSpoolBytes()
    std::string watch;      // --watch[=PERCENT]
    bool quiet = false;
    std::vector<std::string> command;
  };
  auto args = std::make_shared<Args>();
  CLI::App* sub = app.add_subcommand("record", "Record one run of a program (or a running process) into a trace file");
  sub->add_option("-o,--output", args->options.output, "Trace file to write")->capture_default_str();
  sub->add_option("--sync", args->sync,
                  "How to record synchronisation: ebpf (uprobes and tracepoints, root; a program built with "
                  "seer-cc/seer-c++ adds its accesses from the runtime), inproc (the seer runtime linked by "
                  "seer-cc/seer-c++), preload (a dynamically linked program launched with libseer_rt.so in "
                  "LD_PRELOAD: no uprobes, no root), inject (-p PID: the runtime loaded into the running "
                  "process, its pthread and allocation calls redirected to it until the detach; root or "
                  "ptrace rights), auto (inproc when the program carries the runtime, preload for other "
                  "dynamically linked programs, ebpf for static ones; with -p inject when possible, else ebpf), "
                  "none (with --watch: only the races the watchpoints catch, no synchronisation, no access)")
      ->check(CLI::IsMember({"ebpf", "inproc", "preload", "inject", "auto", "none"}))
      ->capture_default_str();
  sub->add_option("--ringbuf-size", args->options.ebpf.ringbuf_bytes,
                  "BPF ring buffer size in bytes (rounded up to a power of two)")
      ->check(CLI::Range(uint64_t{4096}, uint64_t{1} << 31))
      ->capture_default_str();
  sub->add_option("-p,--pid", args->options.pid, "Attach to this running process instead of running a command");
  sub->add_option("--duration", args->options.duration_s, "With -p: stop after this many seconds")
      ->check(CLI::NonNegativeNumber);
  sub->add_option("--spool-mb", args->spool_mb,
                  "inproc: memory for records copied out of the program but not yet encoded; when full, "
                  "the program waits for the recorder (default: a quarter of the available memory, "
                  "256 to 512 MiB)")
      ->check(CLI::Range(uint64_t{16}, uint64_t{1} << 20));
  sub->add_option("--rings", args->options.inproc.max_rings,
                  "inproc, preload, inject: threads recorded at once, one ring of 4 MiB (virtual) each; the ring "
                  "of a thread that ended and was joined or detached is reused, and a thread that finds none "
                  "(all held at once) is counted as without a ring")
      ->check(CLI::Range(uint32_t{1}, uint32_t{1} << 16))
      ->capture_default_str();
  sub->add_flag("--futex-tracepoints", args->options.inproc.futex_tracepoints,
                "inproc, preload, inject: also record the futex system calls the program issues without libc's "
                "syscall() (which the runtime records), with the eBPF futex tracepoints; needs root or CAP_BPF "
                "and CAP_PERFMON, and while attached slows every system call on the machine (ebpf mode always "
                "has them)");
  sub->add_option("--watch", args->watch,
                  "Races caught in the act: a sampled access is covered by a watchpoint (the seer-cc hooks' own, "
                  "and a hardware one where the machine fires them) while its thread is held for a moment, and "
                  "another thread touching the same bytes meanwhile, or a value changed under it, is a race (no "
                  "root). A seer-cc/seer-c++ build is sampled by its hooks (with --sync=none), a dynamically linked "
                  "program without them by a CPU-time timer in the preloaded runtime, or in the runtime injected into "
                  "a running process (-p; root or ptrace rights), with or without its synchronisation recorded; the "
                  "detach leaves no timer or handler behind. PERCENT: the share of each thread's time it may be "
                  "held (default 2)")
      ->expected(0, 1);
  sub->add_option("--watch-hold-us", args->options.inproc.watch_delay_us,
                  "--watch: how long a sampled thread is held, in microseconds")
      ->check(CLI::Range(10u, 100000u))
      ->capture_default_str();
  sub->add_flag("-q,--quiet", args->quiet, "No summary line");
  sub->add_option("command", args->command, "The command to run and its arguments (after --)");
  sub->positionals_at_end();
  auto watch_given = [sub] { return sub->count("--watch") > 0; };
  sub->callback([args, &runner, watch_given]() {
    runner.run = [args, watch_given]() {
      recorder::RecordOptions& o = args->options;
      o.command = args->command;
      if (o.pid > 0 && !o.command.empty()) {
        fprintf(stderr, "seer record: give either a command or -p PID, not both\n");
        return kExitError;
      }
      if (o.pid <= 0 && o.command.empty()) {
        fprintf(stderr, "seer record: give a command to run (seer record -- CMD ARGS...) or -p PID\n");
        return kExitError;
      }
      if (o.duration_s > 0 && o.pid <= 0) {
        fprintf(stderr, "seer record: --duration needs -p PID\n");
        return kExitError;
      }
      if ((args->sync == "inproc" || args->sync == "preload") && o.pid > 0) {
        fprintf(stderr,
                "seer record: --sync=%s needs a command to run; to record a running process use "
                "--sync=ebpf or auto (a program built with seer-cc adds its accesses through its attach point)\n",
                args->sync.c_str());
        return kExitError;
      }
      if (args->sync == "inject" && o.pid <= 0) {
        fprintf(stderr,
                "seer record: --sync=inject records a running process: give -p PID (a program to launch "
                "is recorded with --sync=preload)\n");
        return kExitError;
      }
      if (watch_given()) {
        double percent = 0;
        const Status st = recorder::ParseWatchShare(args->watch, &percent);
        if (!st.ok()) {
          fprintf(stderr, "seer record: --watch=%s\n", st.message().c_str());
          return kExitError;
        }
        recorder::EnableWatch(percent, &o.inproc);
      }
      if (args->sync == "none") {
        if (o.inproc.watch_period == 0) {
          fprintf(stderr, "seer record: --sync=none records only the races --watch catches: add --watch\n");
          return kExitError;
        }
        o.inproc.sync_none = true;
      }
      if (o.inproc.watch_period != 0 && args->sync == "ebpf") {
        fprintf(stderr,
                "seer record: --watch samples through seer's runtime in the program (--sync=inproc, preload, "
                "inject, none or auto); --sync=ebpf records without it\n");
        return kExitError;
      }
      std::string why_not_inject;
      if (args->sync == "inproc")
        o.mode = recorder::RecordMode::kInproc;
      else if (args->sync == "preload")
        o.mode = recorder::RecordMode::kPreload;
      else if (args->sync == "inject")
        o.mode = recorder::RecordMode::kInject;
      else if (args->sync == "ebpf")
        o.mode = recorder::RecordMode::kEbpf;
      else
        o.mode = recorder::AutoRecordMode(o.command, o.pid, &why_not_inject);
      // The samples are the hooks' accesses in a seer-cc build, the preloaded
      // runtime's timer in a dynamically linked program without them
      // (docs/recording.md, "Races caught in the act").
      if (o.inproc.watch_period != 0 && o.mode != recorder::RecordMode::kInproc &&
          o.mode != recorder::RecordMode::kPreload && o.mode != recorder::RecordMode::kInject) {
        if (o.pid > 0)
          fprintf(stderr, "seer record: --watch samples through seer's runtime, which process %d cannot take: %s\n",
                  o.pid, why_not_inject.c_str());
        else
          fprintf(stderr,
                  "seer record: --watch samples through seer's runtime, which needs a dynamically linked program "
                  "or a seer-cc/seer-c++ build; %s is neither (statically linked, or not ELF)\n",
                  o.command[0].c_str());
        return kExitError;
      }
      if (o.inproc.watch_period != 0 && o.mode == recorder::RecordMode::kPreload &&
          recorder::CarriesRuntime(o.command[0])) {
        fprintf(stderr,
                "seer record: %s is a seer-cc build, whose hooks take the samples: record it with --sync=none "
                "--watch, not --sync=preload\n",
                o.command[0].c_str());
        return kExitError;
      }
      if (o.inproc.watch_period != 0 && o.mode == recorder::RecordMode::kInproc && !o.inproc.sync_none) {
        // The hooks check the watches only on the path an unrecorded access takes.
        fprintf(stderr,
                "seer record: --watch on a seer-cc build goes with --sync=none: a full recording sees every access "
                "already, and seer analyze predicts its races\n");
        return kExitError;
      }
      const bool auto_inject = args->sync == "auto" && o.mode == recorder::RecordMode::kInject;
      // A process that cannot take the runtime is recorded with uprobes; say why
      // (a missing process is reported by the eBPF attach itself).
      if (o.pid > 0 && !why_not_inject.empty() && why_not_inject.rfind("no such process", 0) != 0 && !args->quiet)
        fprintf(stderr, "seer record: %s; recording it with uprobes\n", why_not_inject.c_str());
      o.inproc.max_spool_bytes = args->spool_mb << 20;
      // eBPF on a binary that carries the runtime: its accesses come from the
      // rings, its sync events from the probes (attach: through its attach point).
      auto use_ebpf_runtime = [&o] {
        o.ebpf.runtime = recorder::CarriesRuntime(o.pid > 0 ? "/proc/" + std::to_string(o.pid) + "/exe" : o.command[0]);
      };
      if (o.mode == recorder::RecordMode::kEbpf) use_ebpf_runtime();
      recorder::RecordResult result;
      bool started = false;
      Status st = RunRecording(o, &result, &started);
      if (!started && auto_inject) {
        // The runtime could not be loaded (ptrace refused, no thread at a safe
        // point, dlopen failed): the process runs on untouched; use uprobes.
        if (!args->quiet)
          fprintf(stderr, "seer record: cannot load the runtime into process %d (%s); recording it with uprobes\n",
                  static_cast<int>(o.pid), st.ToString().c_str());
        o.mode = recorder::RecordMode::kEbpf;
        use_ebpf_runtime();
        st = RunRecording(o, &result, &started);
      }
      const bool inproc = o.mode != recorder::RecordMode::kEbpf;
      if (!st.ok()) {
        fprintf(stderr, "seer record: %s\n", st.ToString().c_str());
        return kExitError;
      }
      if (o.mode == recorder::RecordMode::kInproc) {
        if (!result.runtime_seen && recorder::CarriesRuntime(o.command[0])) {
          // Built by another seer-cc: its runtime checks the shared area's
          // version and leaves it alone, and the trace would be silently empty.
          fprintf(stderr,
                  "seer record: the seer runtime in %s never claimed the recording area: the program was built "
                  "with another version of seer-cc (this seer's runtime is version %u); rebuild it with this "
                  "seer's seer-cc / seer-c++; nothing was recorded\n",
                  o.command[0].c_str(), rt::kShmVersion);
          return kExitError;
        }
        if (!result.runtime_seen)
          fprintf(stderr,
                  "seer record: %s does not carry the seer runtime (build it with seer-cc / seer-c++); "
                  "nothing was recorded\n",
                  o.command[0].c_str());
      } else if (o.mode == recorder::RecordMode::kInject) {
        if (!result.runtime_note.empty()) fprintf(stderr, "seer record: detach: %s\n", result.runtime_note.c_str());
      } else if (o.mode == recorder::RecordMode::kPreload) {
        if (!result.runtime_seen)
          fprintf(stderr,
                  "seer record: the preloaded runtime never started in %s (LD_PRELOAD ignored: a "
                  "set-user-ID program, or a launcher that clears the environment); nothing was recorded\n",
                  o.command[0].c_str());
      } else {
        if (!result.runtime_note.empty()) fprintf(stderr, "seer record: %s\n", result.runtime_note.c_str());
        if (result.exec_not_followed)
          fprintf(stderr, "seer record: the target executed %s; exec is not followed, the trace ends there\n",
                  result.exec_program.empty() ? "another program" : result.exec_program.c_str());
      }
      if (!args->quiet) {
        const std::string mode = inproc                ? std::string(recorder::RecordModeName(o.mode))
                                 : result.runtime_seen ? "ebpf sync + runtime accesses"
                                                       : "ebpf, " + std::to_string(result.uprobes) + " uprobes";
        fprintf(stderr, "seer record: %llu events, %llu lost, %llu threads (%s) -> %s\n",
                static_cast<unsigned long long>(result.events), static_cast<unsigned long long>(result.lost),
                static_cast<unsigned long long>(result.threads), mode.c_str(), o.output.c_str());
        if (!result.futex_failure.empty())
          fprintf(stderr,
                  "seer record: warning: %s; the futex syscalls the program issued itself after that are not in "
                  "the trace\n",
                  result.futex_failure.c_str());
        if (!result.raw_syscalls_note.empty())
          fprintf(stderr, "seer record: tracefs: %s\n", result.raw_syscalls_note.c_str());
        if (!result.watch.empty()) fprintf(stderr, "seer record: watch: %s\n", result.watch.c_str());
        for (const auto& p : result.processes)
          fprintf(stderr, "seer record: process %d (%s %d): %llu events, %llu lost, %llu threads -> %s%s%s%s%s\n",
                  static_cast<int>(p.pid), p.forked ? "forked by" : "exec'd, child of", static_cast<int>(p.parent),
                  static_cast<unsigned long long>(p.events), static_cast<unsigned long long>(p.lost),
                  static_cast<unsigned long long>(p.threads), p.output.c_str(), p.error.empty() ? "" : "; ",
                  p.error.c_str(), p.note.empty() ? "" : "; ", p.note.c_str());
      }
      // Even with --quiet: a process that ran and is in no trace.
      for (const std::string& u : result.unrecorded_processes)
        fprintf(stderr, "seer record: not recorded: %s\n", u.c_str());
      return o.pid > 0 ? kExitOk : result.ExitStatus();
    };
  });
}

}  // namespace seer::cli
