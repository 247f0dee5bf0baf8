// `seer record`: the command-line front of daemon/recorder.h.
#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include "cli/command.h"
#include "daemon/recorder.h"
#include "runtime/drain/inproc_recorder.h"

namespace seer::cli {

namespace {

// `--sync=inproc`: the program's own seer runtime records accesses and sync.
int RunInproc(const daemon::RecordOptions& o, uint64_t spool_mb) {
  if (o.pid > 0) {
    fprintf(stderr, "seer record: --sync=inproc needs a command to run; to record a running process use "
            "--sync=ebpf or auto (a program built with seer-cc adds its accesses through its attach point)\n");
    return kExitError;
  }
  InprocOptions options;
  options.max_spool_bytes = spool_mb << 20;
  InprocResult result;
  Status st = RecordInproc(o.command, options, o.output, &result);
  if (!st.ok()) {
    fprintf(stderr, "seer record: %s\n", st.ToString().c_str());
    return kExitError;
  }
  if (!result.runtime_seen)
    fprintf(stderr, "seer record: %s does not carry the seer runtime (build it with seer-cc / seer-c++); "
            "nothing was recorded\n", o.command[0].c_str());
  if (!o.quiet)
    fprintf(stderr, "seer record: %llu events, %llu lost, %u threads (inproc) -> %s\n",
            static_cast<unsigned long long>(result.events), static_cast<unsigned long long>(result.lost),
            result.threads, o.output.c_str());
  return result.term_signal != 0 ? 128 + result.term_signal : result.exit_code;
}

}  // namespace

void RegisterRecordCommand(CLI::App& app, Runner& runner) {
  struct Args {
    daemon::RecordOptions options;
    std::string sync = "auto";
    uint64_t spool_mb = 0;  // 0: DefaultSpoolBytes()
    std::vector<std::string> command;
  };
  auto args = std::make_shared<Args>();
  CLI::App* sub = app.add_subcommand(
      "record", "Record one run of a program (or a running process) with eBPF probes into a trace file");
  sub->add_option("-o,--output", args->options.output, "Trace file to write")->capture_default_str();
  sub->add_option("--sync", args->sync,
                  "How to record synchronisation: ebpf (uprobes and tracepoints; a program built with "
                  "seer-cc/seer-c++ adds its accesses from the runtime), inproc (the seer runtime linked by "
                  "seer-cc/seer-c++), auto (inproc when the program carries the runtime)")
      ->check(CLI::IsMember({"ebpf", "inproc", "auto"}))
      ->capture_default_str();
  sub->add_option("--ringbuf-size", args->options.ringbuf_bytes,
                  "BPF ring buffer size in bytes (rounded up to a power of two)")
      ->check(CLI::Range(uint64_t{4096}, uint64_t{1} << 31))
      ->capture_default_str();
  sub->add_option("-p,--pid", args->options.pid, "Attach to this running process instead of running a command");
  sub->add_option("--duration", args->options.duration_s, "With -p: stop after this many seconds")
      ->check(CLI::NonNegativeNumber);
  sub->add_option("--spool-mb", args->spool_mb,
                  "inproc: memory for records copied out of the program but not yet encoded; when full, "
                  "the program waits for the recorder (default: a quarter of the available memory, "
                  "256 MiB to 4 GiB)")
      ->check(CLI::Range(uint64_t{16}, uint64_t{1} << 20));
  sub->add_flag("-q,--quiet", args->options.quiet, "No summary line");
  sub->add_option("command", args->command, "The command to run and its arguments (after --)");
  sub->positionals_at_end();
  sub->callback([args, &runner]() {
    runner.run = [args]() {
      daemon::RecordOptions& o = args->options;
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
      const bool inproc =
          args->sync == "inproc" || (args->sync == "auto" && o.pid <= 0 && CarriesRuntime(o.command[0]));
      if (inproc) return RunInproc(o, args->spool_mb);
      // A binary that carries the runtime: its accesses come from the rings,
      // its sync events from the probes (attach: through its attach point).
      o.runtime = CarriesRuntime(o.pid > 0 ? "/proc/" + std::to_string(o.pid) + "/exe" : o.command[0]);
      daemon::RecordResult result;
      Status st = daemon::Record(o, &result);
      if (!st.ok()) {
        fprintf(stderr, "seer record: %s\n", st.ToString().c_str());
        return kExitError;
      }
      if (!result.runtime_note.empty()) fprintf(stderr, "seer record: %s\n", result.runtime_note.c_str());
      if (result.exec_not_followed)
        fprintf(stderr, "seer record: the target executed %s; exec is not followed, the trace ends there\n",
                result.exec_program.empty() ? "another program" : result.exec_program.c_str());
      if (!o.quiet)
        fprintf(stderr, "seer record: %llu events, %llu lost, %llu threads%s -> %s\n",
                static_cast<unsigned long long>(result.events), static_cast<unsigned long long>(result.lost),
                static_cast<unsigned long long>(result.threads),
                result.runtime_seen ? " (ebpf sync + runtime accesses)" : "", o.output.c_str());
      return o.pid > 0 ? kExitOk : result.exit_status;
    };
  });
}

}  // namespace seer::cli
