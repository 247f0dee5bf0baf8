#include "recorder/runtime_modes/process_family.h"

#include <poll.h>
#include <sys/stat.h>

#include <atomic>
#include <chrono>
#include <map>
#include <mutex>
#include <thread>
#include <utility>
#include <vector>

#include "recorder/proc_maps.h"
#include "recorder/runtime_modes/child_listener.h"
#include "recorder/runtime_modes/inproc_recording.h"

namespace seer::recorder {
namespace {

using Clock = std::chrono::steady_clock;
using ProcessTrace = RecordResult::ProcessTrace;

// Processes recorded at once besides the first: each has its rings, a merge
// thread and encoders. A server forking a process per connection past this
// has the others named as not recorded.
constexpr size_t kMaxProcesses = 64;
// How often /proc is read for processes that did not ask.
constexpr auto kScanPeriod = std::chrono::milliseconds(100);

constexpr const char* kNoRuntime =
    "its program does not load seer's runtime (a static program, one not built with seer-cc / seer-c++ under "
    "--sync=inproc, or an environment without LD_PRELOAD or SEER_RT_CHILDREN)";
// The same for a process attached by injection, whose runtime only a fork() carries on.
constexpr const char* kNoRuntimeInjected =
    "it never asked for rings: the runtime injected into its parent follows fork() only (a process made by "
    "posix_spawn, vfork or a raw clone runs no fork handler; one that switched to another user cannot reach seer)";
constexpr const char* kExecInjected =
    "exec'd: its new program does not carry the runtime injected into the process (nor does its environment "
    "name seer)";

// "PID (PROGRAM)": the program as /proc names it, its command name once it has ended.
std::string Describe(pid_t pid, const std::string& program) {
  const std::string name = !program.empty() ? program : ThreadName(pid, pid);
  return "process " + std::to_string(pid) + (name.empty() ? "" : " (" + name + ")");
}

class ProcessFamilyRecording final : public Recording {
 public:
  explicit ProcessFamilyRecording(const RecordOptions& options)
      : options_(options), attached_(options.mode == RecordMode::kInject) {}
  ~ProcessFamilyRecording() override { StopAnswering(); }

  Status Begin();
  Status Poll(bool* running) override;
  void Stop() override;
  Status Finish(RecordResult* result) override;
  RecordCounters counters() const override { return main_->counters(); }
  bool SetPaused(bool paused) override { return main_->SetPaused(paused); }
  bool PauseDrained() const override { return main_->PauseDrained(); }

 private:
  struct Member {
    ProcessTrace trace;
    std::string program;                   // its executable when it asked: a change means it exec'd
    std::unique_ptr<Recording> recording;  // null once closed
    bool running = true;
  };
  // A process that did not ask (yet): named at the end unless it asks.
  struct Unseen {
    pid_t parent = 0;
    std::string program;
    std::string why;
  };

  // The answering thread: each process that asks is answered there at once
  // (it waits, inside fork() or its start-up, until it is), and its new
  // recording handed to the polling thread through adopted_.
  void Answer();
  void Adopt(ChildAsk* ask);
  void StopAnswering();
  // The polling thread: takes the recordings the answering thread made.
  void TakeAdopted();
  // One round of member `i` (closed once it ended); 1 while it runs.
  size_t PollMember(size_t i);
  // Finishes the trace of a member whose process ended (or whose recording failed).
  void Close(Member* m);
  void LookForUnrecorded();
  std::vector<std::string> UnrecordedNames() const;

  const RecordOptions options_;
  // kInject: the recording ends with the first process's; the others are detached then.
  const bool attached_;
  ChildListener listener_;
  std::unique_ptr<Recording> main_;
  pid_t main_pid_ = 0;
  std::string main_program_;
  bool main_running_ = true;
  std::vector<Member> children_;
  std::map<pid_t, Unseen> unseen_;
  // The answering thread's, and what it hands over under mu_.
  std::thread answerer_;
  std::atomic<bool> answering_{true};
  std::map<pid_t, int> programs_of_pid_;  // traces made per pid so far
  std::mutex mu_;
  std::vector<Member> adopted_;              // recordings made, not yet taken over
  std::map<pid_t, Unseen> refused_;          // processes answered no
  std::atomic<size_t> running_children_{0};  // adopted and not yet closed
  Clock::time_point last_scan_;
  std::atomic<bool> stop_requested_{false};
  bool stop_passed_on_ = false;
};

Status ProcessFamilyRecording::Begin() {
  // An attached process's children run as its user: they must be able to ask.
  struct stat st_proc;
  const uid_t owner = attached_ && stat(("/proc/" + std::to_string(options_.pid)).c_str(), &st_proc) == 0
                          ? st_proc.st_uid
                          : static_cast<uid_t>(-1);
  Status st = listener_.Open(owner);
  if (!st.ok()) return st.WithContext("following the program's processes");
  RecordOptions main = options_;
  main.inproc.children_socket = listener_.path();
  // Children forked before the attach: never followed, named (after the
  // start, which checks that the process is there and takes the runtime).
  std::vector<pid_t> earlier;
  if (attached_) earlier = ChildProcesses(options_.pid);
  st = StartInprocRecording(main, &main_);
  if (!st.ok()) return st;
  main_pid_ = main_->target_pid();
  main_program_ = ProcessExecutable(main_pid_);
  for (pid_t child : earlier)
    unseen_[child] = {main_pid_, ProcessExecutable(child),
                      "forked before seer attached to its parent: only the processes forked while it is recorded "
                      "are followed"};
  answerer_ = std::thread([this] { Answer(); });
  return Status::Ok();
}

void ProcessFamilyRecording::Answer() {
  while (answering_.load()) {
    pollfd p = {listener_.fd(), POLLIN, 0};
    if (poll(&p, 1, 50) <= 0) continue;
    ChildAsk ask;
    while (listener_.Next(&ask)) Adopt(&ask);
  }
}

void ProcessFamilyRecording::StopAnswering() {
  answering_.store(false);
  if (answerer_.joinable()) answerer_.join();
}

void ProcessFamilyRecording::TakeAdopted() {
  std::vector<Member> taken;
  std::map<pid_t, Unseen> refused;
  {
    std::lock_guard<std::mutex> lock(mu_);
    taken.swap(adopted_);
    refused.swap(refused_);
  }
  for (auto& [pid, u] : refused) unseen_[pid] = std::move(u);
  for (Member& m : taken) {
    unseen_.erase(m.trace.pid);
    if (stop_passed_on_) m.recording->Stop();
    children_.push_back(std::move(m));
  }
}

void ProcessFamilyRecording::Adopt(ChildAsk* ask) {
  Member m;
  m.trace.pid = ask->pid;
  m.trace.parent = ask->parent;
  m.trace.forked = ask->forked;
  m.program = ProcessExecutable(ask->pid);
  // At the bound, a burst waits a little for recorded processes to end.
  for (int i = 0; i < 1000 && running_children_.load() >= kMaxProcesses && answering_.load(); ++i)
    std::this_thread::sleep_for(std::chrono::milliseconds(2));
  if (running_children_.load() >= kMaxProcesses) {
    ChildListener::Refuse(ask);
    std::lock_guard<std::mutex> lock(mu_);
    refused_[ask->pid] = {ask->parent, m.program,
                          "more than " + std::to_string(kMaxProcesses) + " processes were being recorded at once"};
    return;
  }
  RecordOptions child = options_;
  child.output = ProcessTracePath(options_.output, ask->pid, ++programs_of_pid_[ask->pid]);
  child.command.clear();
  // The tracepoints were loaded for the first process; the watchpoints are its too.
  child.inproc.futex_tracepoints = false;
  child.inproc.watch_period = 0;
  // Injected: a process learns the socket from its area's attach page, not its environment.
  if (attached_) child.inproc.children_socket = listener_.path();
  m.trace.output = child.output;
  ChildProcess process;
  process.pid = ask->pid;
  process.parent = ask->parent;
  process.forked = ask->forked;
  process.give_area = [ask](int area_fd) { return ChildListener::Answer(ask, area_fd); };
  Status st = StartChildRecording(child, process, &m.recording);
  if (ask->fd >= 0) ChildListener::Refuse(ask);  // not answered: it goes on unrecorded
  std::lock_guard<std::mutex> lock(mu_);
  if (!st.ok()) {
    refused_[ask->pid] = {ask->parent, m.program,
                          st.message() == kEndedWhileAsking ? std::string(kEndedWhileAsking)
                                                            : "its trace could not be started: " + st.ToString()};
    return;
  }
  running_children_.fetch_add(1);
  adopted_.push_back(std::move(m));
}

size_t ProcessFamilyRecording::PollMember(size_t i) {
  Member& m = children_[i];
  Status st = m.recording->Poll(&m.running);
  if (!st.ok()) {
    m.trace.error = st.ToString();
    m.running = false;
  }
  // Closed at once: a program that forks a process per request would
  // otherwise keep a merge thread and encoders per process it ever made.
  if (!m.running) Close(&m);
  return m.running ? 1 : 0;
}

// The children /proc lists of every recorded process still running, and the
// recorded processes whose program changed (an exec): each is recorded once
// it asks; until then it is a process seer did not record.
void ProcessFamilyRecording::LookForUnrecorded() {
  last_scan_ = Clock::now();
  std::map<pid_t, const std::string*> recorded;  // running pid: its latest program
  if (main_running_) recorded[main_pid_] = &main_program_;
  for (const Member& m : children_)
    if (m.running) recorded[m.trace.pid] = &m.program;
  for (const auto& [pid, program] : recorded) {
    for (pid_t child : ChildProcesses(pid)) {
      if (recorded.count(child) != 0 || unseen_.count(child) != 0) continue;
      bool asked = false;
      for (const Member& m : children_) asked = asked || m.trace.pid == child;
      if (!asked) unseen_[child] = {pid, ProcessExecutable(child), attached_ ? kNoRuntimeInjected : kNoRuntime};
    }
    const std::string now = ProcessExecutable(pid);
    if (!now.empty() && now != *program && unseen_.count(pid) == 0)
      unseen_[pid] = {0, now,
                      attached_ ? kExecInjected : std::string("exec'd without asking for rings: ") + kNoRuntime};
  }
}

void ProcessFamilyRecording::Close(Member* m) {
  if (m->recording == nullptr) return;
  RecordResult r;
  Status st = m->recording->Finish(&r);
  if (!st.ok() && m->trace.error.empty()) m->trace.error = st.ToString();
  if (!r.runtime_note.empty() && m->trace.error.empty()) m->trace.error = "detach: " + r.runtime_note;
  m->trace.events = r.events;
  m->trace.lost = r.lost;
  m->trace.threads = r.threads;
  m->recording.reset();
  m->running = false;
  running_children_.fetch_sub(1);
}

Status ProcessFamilyRecording::Poll(bool* running) {
  TakeAdopted();
  if (stop_requested_.load() && !stop_passed_on_) {
    stop_passed_on_ = true;
    for (Member& m : children_)
      if (m.recording != nullptr) m.recording->Stop();
  }
  if (main_running_) {
    Status st = main_->Poll(&main_running_);
    if (!st.ok()) return st;
  }
  // Attached: the first process was let go (Stop, --duration) or ended; the
  // processes it forked are let go too, at their next Poll, and not waited for.
  if (attached_ && !main_running_ && !stop_passed_on_) {
    stop_passed_on_ = true;
    for (Member& m : children_)
      if (m.recording != nullptr) m.recording->Stop();
  }
  bool any = main_running_;
  for (size_t i = 0; i < children_.size(); ++i)
    if (children_[i].running) any = PollMember(i) != 0 || any;
  if (Clock::now() - last_scan_ >= kScanPeriod) LookForUnrecorded();
  if (!any) {  // one that asked as the last one ended
    TakeAdopted();
    for (const Member& m : children_) any = any || m.running;
  }
  *running = any;
  return Status::Ok();
}

void ProcessFamilyRecording::Stop() {
  // Async-signal-safe: the children hear of it at the next Poll.
  stop_requested_.store(true);
  main_->Stop();
}

std::vector<std::string> ProcessFamilyRecording::UnrecordedNames() const {
  std::vector<std::string> names;
  for (const auto& [pid, u] : unseen_)
    names.push_back(Describe(pid, u.program) + (u.parent > 0 ? ", child of " + std::to_string(u.parent) : "") + ": " +
                    u.why);
  return names;
}

Status ProcessFamilyRecording::Finish(RecordResult* result) {
  StopAnswering();
  TakeAdopted();
  // The processes first: the main trace names them.
  std::vector<ProcessTrace> traces;
  for (Member& m : children_) {
    Close(&m);
    traces.push_back(m.trace);
  }
  const std::vector<std::string> unrecorded = UnrecordedNames();
  NameFamilyInFirstTrace(traces, unrecorded, main_.get());
  Status st = main_->Finish(result);
  result->processes = std::move(traces);
  result->unrecorded_processes = unrecorded;
  return st;
}

}  // namespace

std::string ProcessTracePath(const std::string& output, pid_t pid, int nth) {
  const std::string tag = std::to_string(pid) + (nth > 1 ? "." + std::to_string(nth) : "");
  const std::string ending = ".seer";
  const size_t slash = output.rfind('/');
  const bool has_ending = output.size() > ending.size() &&
                          output.compare(output.size() - ending.size(), ending.size(), ending) == 0 &&
                          (slash == std::string::npos || output.size() - ending.size() > slash + 1);
  if (has_ending) return output.substr(0, output.size() - ending.size()) + "." + tag + ending;
  return output + "." + tag;
}

void NameFamilyInFirstTrace(const std::vector<ProcessTrace>& traces, const std::vector<std::string>& unrecorded,
                            Recording* main) {
  std::string listed, unlisted;
  for (const ProcessTrace& t : traces)
    listed += (listed.empty() ? "" : "; ") + std::to_string(t.pid) + (t.forked ? " forked by " : " exec'd, child of ") +
              std::to_string(t.parent) + ": " + t.output;
  for (const std::string& u : unrecorded) unlisted += (unlisted.empty() ? "" : "; ") + u;
  if (!listed.empty()) main->AddEndMeta("record.processes", listed);
  if (!unlisted.empty()) main->AddEndMeta("record.unrecorded_processes", unlisted);
}

Status StartProcessFamilyRecording(const RecordOptions& options, std::unique_ptr<Recording>* out) {
  auto recording = std::make_unique<ProcessFamilyRecording>(options);
  Status st = recording->Begin();
  if (!st.ok()) return st;
  *out = std::move(recording);
  return Status::Ok();
}

}  // namespace seer::recorder
