#include "predictor/common/job_pool.h"

#include <utility>

namespace seer::predictor {
namespace {
// The pool and index of the calling thread, when it is one of a pool's.
thread_local const JobPool* current_pool = nullptr;
thread_local int current_index = -1;
}  // namespace

JobPool::JobPool(unsigned threads) {
  if (threads == 0) threads = 1;
  own_.resize(threads);
  threads_.reserve(threads);
  for (unsigned i = 0; i < threads; ++i) threads_.emplace_back([this, i] { Work(static_cast<int>(i)); });
}

JobPool::~JobPool() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    stopping_ = true;
  }
  cv_.notify_all();
  for (std::thread& t : threads_) t.join();
}

void JobPool::Submit(std::function<void()> task, int thread) {
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (thread == kAnyThread)
      queue_.push_back(std::move(task));
    else
      own_[static_cast<size_t>(thread) % own_.size()].push_back(std::move(task));
  }
  // notify_all: a helper waits on the same variable for other reasons, and
  // waking only it could leave an idle thread asleep with a task queued.
  cv_.notify_all();
}

bool JobPool::Pop(std::function<void()>* task) {
  if (current_pool == this && !own_[static_cast<size_t>(current_index)].empty()) {
    auto& own = own_[static_cast<size_t>(current_index)];
    *task = std::move(own.front());
    own.pop_front();
    return true;
  }
  if (queue_.empty()) return false;
  *task = std::move(queue_.front());
  queue_.pop_front();
  return true;
}

void JobPool::Work(int index) {
  current_pool = this;
  current_index = index;
  std::unique_lock<std::mutex> lock(mu_);
  while (true) {
    std::function<void()> task;
    cv_.wait(lock, [&] { return Pop(&task) || stopping_; });
    if (!task) {
      // Stopping: every thread ends once its own queue and the shared one are empty.
      return;
    }
    lock.unlock();
    task();
    lock.lock();
    ++ended_;
    cv_.notify_all();
  }
}

void JobPool::HelpUntil(const std::function<bool()>& done) {
  std::unique_lock<std::mutex> lock(mu_);
  while (true) {
    // The count is read before `done`: a task that ends after the check
    // changes it, so the wait below cannot miss it.
    const uint64_t ended = ended_;
    lock.unlock();
    if (done()) return;
    lock.lock();
    std::function<void()> task;
    if (Pop(&task)) {
      lock.unlock();
      task();
      lock.lock();
      ++ended_;
      cv_.notify_all();
      continue;
    }
    cv_.wait(lock, [&] {
      return ended_ != ended || !queue_.empty() ||
             (current_pool == this && !own_[static_cast<size_t>(current_index)].empty());
    });
  }
}

}  // namespace seer::predictor
