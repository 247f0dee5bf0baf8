#include "recorder/ebpf/ebpf_family.h"

#include <signal.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <future>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "recorder/ebpf/ebpf_recording.h"
#include "recorder/proc_maps.h"
#include "recorder/runtime_modes/child_listener.h"
#include "recorder/runtime_modes/process_family.h"

namespace seer::recorder {
namespace {

using ProcessTrace = RecordResult::ProcessTrace;

// Processes recorded at once besides the first: each has its BPF programs, a
// ring buffer and a writer. A server forking a process per connection past
// this has the others named as not recorded.
constexpr size_t kMaxProcesses = 32;

class EbpfFamilyRecording final : public Recording {
 public:
  explicit EbpfFamilyRecording(const RecordOptions& options) : options_(options), attached_(options.pid > 0) {}
  ~EbpfFamilyRecording() override { WaitForTeardowns(); }

  Status Begin();
  Status Poll(bool* running) override;
  void Stop() override;
  Status Finish(RecordResult* result) override;
  RecordCounters counters() const override { return main_->counters(); }
  pid_t target_pid() const override { return main_->target_pid(); }

 private:
  struct Member {
    ProcessTrace trace;
    std::unique_ptr<EbpfProcessRecording> recording;  // null once closed
    bool running = true;
  };

  EbpfFollow Follow() {
    EbpfFollow follow;
    follow.seen = [this](const NewProgram& p) { seen_.push_back(p); };
    return follow;
  }
  // Starts the recording of each process the tracer stopped since the last
  // call, and continues it; or, past the bound or at the end, continues it
  // unrecorded and names it.
  void TakeSeen();
  void Adopt(const NewProgram& p);
  void NameUnrecorded(const NewProgram& p, const std::string& why);
  // A recorded seer-cc process asking for rings (listener_): its recording's.
  void AnswerAsks();
  // Finishes the trace of a member whose process ended, exec'd or was let go.
  void Close(Member* m);
  size_t Running() const;
  // A member records the first process's program after an exec of its own.
  bool FirstProcessExecd() const;
  // Detaching a recording's probes waits for kernel grace periods (some 130
  // ms): done beside the polling, which would otherwise hold the next process
  // stopped that long, and waited for at the end.
  void TearDown(std::unique_ptr<EbpfProcessRecording> recording);
  void WaitForTeardowns();

  RecordOptions options_;
  // -p: the recording ends with the first process's; the others are detached then.
  const bool attached_;
  // A launched seer-cc program (options.ebpf.runtime): its processes' runtimes
  // ask here for rings of their own, which their recordings drain.
  ChildListener listener_;
  bool answering_ = false;
  std::unique_ptr<EbpfProcessRecording> main_;
  bool main_running_ = true;
  std::vector<Member> members_;
  std::vector<NewProgram> seen_;  // from the recordings' Poll and Finish, on this thread
  std::vector<std::string> unrecorded_;
  std::map<pid_t, int> programs_of_pid_;  // traces made per pid so far
  std::atomic<bool> stop_requested_{false};
  bool stop_passed_on_ = false;
  bool ending_ = false;  // Finish: nothing new is followed
  std::vector<std::future<void>> teardowns_;
};

void EbpfFamilyRecording::TearDown(std::unique_ptr<EbpfProcessRecording> recording) {
  // Done ones first: a program forking all day leaves no pile of them.
  std::erase_if(teardowns_, [](const std::future<void>& f) {
    return f.wait_for(std::chrono::seconds(0)) == std::future_status::ready;
  });
  teardowns_.push_back(std::async(std::launch::async, [r = std::move(recording)]() mutable { r.reset(); }));
}

void EbpfFamilyRecording::WaitForTeardowns() {
  for (std::future<void>& f : teardowns_) f.wait();
  teardowns_.clear();
}

Status EbpfFamilyRecording::Begin() {
  if (options_.ebpf.runtime && !attached_) {
    Status st = listener_.Open();
    if (!st.ok()) return st.WithContext("following the program's processes");
    options_.inproc.children_socket = listener_.path();
    answering_ = true;
  }
  Status st = StartEbpfRecording(options_, Follow(), &main_);
  if (!st.ok()) return st;
  programs_of_pid_[main_->target_pid()] = 1;  // the main trace is its first program
  return Status::Ok();
}

void EbpfFamilyRecording::Stop() {
  // Async-signal-safe: the other processes hear of it at the next Poll.
  stop_requested_.store(true);
  main_->Stop();
}

bool EbpfFamilyRecording::FirstProcessExecd() const {
  for (const Member& m : members_)
    if (m.running && !m.trace.forked && m.trace.pid == main_->target_pid()) return true;
  return false;
}

size_t EbpfFamilyRecording::Running() const {
  size_t n = 0;
  for (const Member& m : members_) n += m.running ? 1 : 0;
  return n;
}

void EbpfFamilyRecording::NameUnrecorded(const NewProgram& p, const std::string& why) {
  const std::string program = ProcessExecutable(p.pid);
  unrecorded_.push_back("process " + std::to_string(p.pid) + (program.empty() ? "" : " (" + program + ")") +
                        (p.forked ? ", forked by " : ", exec'd, child of ") + std::to_string(p.parent) + ": " + why);
}

void EbpfFamilyRecording::Adopt(const NewProgram& p) {
  std::string why;
  if (ending_ || stop_requested_.load())
    why = "it started as the recording ended";
  else if (attached_ && !main_running_ && !(p.pid == main_->target_pid() && !p.forked) && !FirstProcessExecd())
    why = "it started after seer detached from process " + std::to_string(main_->target_pid());
  else if (Running() >= kMaxProcesses)
    why = "more than " + std::to_string(kMaxProcesses) + " processes were being recorded at once";
  if (!why.empty()) {
    NameUnrecorded(p, why);
    kill(p.pid, SIGCONT);
    return;
  }
  RecordOptions o = options_;
  o.command.clear();
  o.pid = p.pid;
  o.duration_s = 0;  // the family decides when its members end
  // Rings for its runtime, which asks for them once it runs (AnswerAsks).
  o.ebpf.runtime = answering_ && CarriesRuntime(ProcessExecutable(p.pid));
  o.output = ProcessTracePath(options_.output, p.pid, ++programs_of_pid_[p.pid]);
  EbpfFollow follow = Follow();
  follow.adopt = true;
  follow.adopted = p;
  std::unique_ptr<EbpfProcessRecording> recording;
  Status st = StartEbpfRecording(o, follow, &recording);
  kill(p.pid, SIGCONT);  // recorded from here on, or running on unrecorded
  if (!st.ok()) {
    unlink(o.output.c_str());  // a trace begun and not recorded
    NameUnrecorded(p, st.message());
    return;
  }
  Member m;
  m.trace.pid = p.pid;
  m.trace.parent = p.parent;
  m.trace.forked = p.forked;
  m.trace.output = o.output;
  m.recording = std::move(recording);
  members_.push_back(std::move(m));
}

void EbpfFamilyRecording::AnswerAsks() {
  if (!answering_) return;
  ChildAsk ask;
  while (listener_.Next(&ask)) {
    Member* asker = nullptr;
    for (Member& m : members_)
      if (m.running && m.trace.pid == ask.pid) asker = &m;  // the latest: after an exec, the new program's
    Status st = asker ? asker->recording->GiveRuntimeArea([&ask](int fd) { return ChildListener::Answer(&ask, fd); })
                      : Status::NotFound("not followed");
    if (ask.fd >= 0) ChildListener::Refuse(&ask);  // not answered: its runtime records nothing
    if (!st.ok() && asker) asker->trace.note = "synchronisation only: its runtime's rings: " + st.message();
  }
}

void EbpfFamilyRecording::TakeSeen() {
  // Adopting one can hand over more (its recording's start drains nothing,
  // but a Close does): take until none is left.
  while (!seen_.empty()) {
    std::vector<NewProgram> seen = std::move(seen_);
    seen_.clear();
    for (const NewProgram& p : seen) Adopt(p);
  }
}

void EbpfFamilyRecording::Close(Member* m) {
  if (!m->recording) return;
  RecordResult r;
  Status st = m->recording->Finish(&r);
  m->trace.events = r.events;
  m->trace.lost = r.lost;
  m->trace.threads = r.threads;
  if (!st.ok()) m->trace.error = st.message();
  if (m->trace.note.empty()) m->trace.note = r.runtime_note;
  for (const std::string& u : r.unrecorded_processes) unrecorded_.push_back(u);
  TearDown(std::move(m->recording));
  m->running = false;
}

Status EbpfFamilyRecording::Poll(bool* running) {
  if (main_running_) {
    Status st = main_->Poll(&main_running_);
    if (!st.ok()) {
      main_running_ = false;
      return st;
    }
  }
  const bool stop = stop_requested_.load();
  // -p: the first process goes on in a member after an exec of its own.
  const bool first_running = main_running_ || FirstProcessExecd();
  for (size_t i = 0; i < members_.size(); ++i) {
    Member& m = members_[i];  // by index: an exec's new member may be appended below
    if (!m.running) continue;
    if (attached_ && (stop || !first_running)) m.recording->Stop();  // detached with the first process
    bool member_running = false;
    Status st = m.recording->Poll(&member_running);
    if (!st.ok()) m.trace.error = st.message();
    if (!member_running || !st.ok()) Close(&members_[i]);
    TakeSeen();
  }
  TakeSeen();
  AnswerAsks();
  if (stop && !attached_ && !stop_passed_on_) {
    // A launched family: SIGTERM reaches each recorded process, as it did the first.
    for (const Member& m : members_)
      if (m.running) kill(m.trace.pid, SIGTERM);
    stop_passed_on_ = true;
  }
  // Attached, members past the first process's end were told to stop above
  // and are closed once they have detached.
  *running = main_running_ || Running() > 0;
  return Status::Ok();
}

Status EbpfFamilyRecording::Finish(RecordResult* result) {
  ending_ = true;
  std::vector<ProcessTrace> traces;
  for (size_t i = 0; i < members_.size(); ++i) {
    Member& m = members_[i];
    if (m.running) m.recording->Stop();  // an error or a detach: it runs on
    Close(&m);
    TakeSeen();  // continued, and named
    traces.push_back(m.trace);
  }
  NameFamilyInFirstTrace(traces, unrecorded_, main_.get());
  Status st = main_->Finish(result);
  TakeSeen();  // stopped as the main recording ended: continued
  WaitForTeardowns();
  result->processes = std::move(traces);
  result->unrecorded_processes.insert(result->unrecorded_processes.end(), unrecorded_.begin(), unrecorded_.end());
  return st;
}

}  // namespace

Status StartEbpfFamilyRecording(const RecordOptions& options, std::unique_ptr<Recording>* out) {
  auto recording = std::make_unique<EbpfFamilyRecording>(options);
  Status st = recording->Begin();
  if (!st.ok()) return st;
  *out = std::move(recording);
  return Status::Ok();
}

}  // namespace seer::recorder
