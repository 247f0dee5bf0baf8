// The threads of `seer analyze --jobs N`: a queue of tasks that N threads run
// in the order they were submitted. A thread that must wait for other tasks
// (an engine waiting for its windows) runs queued tasks meanwhile, so waiting
// never idles a job and waits cannot deadlock as long as tasks themselves never
// block on anything but HelpUntil.
#pragma once

#include <condition_variable>
#include <cstdint>
#include <deque>
#include <functional>
#include <mutex>
#include <thread>
#include <vector>

namespace seer::predictor {

class JobPool {
 public:
  // Starts `threads` (at least 1) threads.
  explicit JobPool(unsigned threads);
  // Runs what is still queued, then joins the threads.
  ~JobPool();
  JobPool(const JobPool&) = delete;
  JobPool& operator=(const JobPool&) = delete;

  unsigned threads() const { return static_cast<unsigned>(threads_.size()); }

  // Queues `task` for any thread, or for thread `thread` only (a task that
  // works on data that thread keeps in its caches: an engine's state).
  static constexpr int kAnyThread = -1;
  void Submit(std::function<void()> task, int thread = kAnyThread);
  // Returns once `done()` is true, running queued tasks on the calling thread
  // until then. `done` is called on the calling thread, and again each time a
  // task ends: what it waits for must be made true by a task (or by the caller).
  void HelpUntil(const std::function<bool()>& done);

 private:
  void Work(int index);
  // The next task the calling thread may run (its own first), under mu_.
  bool Pop(std::function<void()>* task);

  std::mutex mu_;
  std::condition_variable cv_;                          // a task queued, a task ended, or the pool stops
  std::deque<std::function<void()>> queue_;             // for any thread
  std::vector<std::deque<std::function<void()>>> own_;  // per thread
  uint64_t ended_ = 0;                                  // tasks ended so far: HelpUntil's wake-up
  bool stopping_ = false;
  std::vector<std::thread> threads_;
};

}  // namespace seer::predictor
