#include "predictor/common/job_pool.h"

#include <utility>

namespace seer::predictor {

JobPool::JobPool(unsigned threads) {
  if (threads == 0) threads = 1;
  threads_.reserve(threads);
  for (unsigned i = 0; i < threads; ++i) threads_.emplace_back([this] { Work(); });
}

JobPool::~JobPool() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    stopping_ = true;
  }
  cv_.notify_all();
  for (std::thread& t : threads_) t.join();
}

void JobPool::Submit(std::function<void()> task) {
  {
    std::lock_guard<std::mutex> lock(mu_);
    queue_.push_back(std::move(task));
  }
  // notify_all: a helper waits on the same variable for other reasons, and
  // waking only it could leave an idle thread asleep with a task queued.
  cv_.notify_all();
}

void JobPool::Work() {
  std::unique_lock<std::mutex> lock(mu_);
  while (true) {
    cv_.wait(lock, [&] { return stopping_ || !queue_.empty(); });
    if (queue_.empty()) return;  // stopping, and nothing left to run
    std::function<void()> task = std::move(queue_.front());
    queue_.pop_front();
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
    if (!queue_.empty()) {
      std::function<void()> task = std::move(queue_.front());
      queue_.pop_front();
      lock.unlock();
      task();
      lock.lock();
      ++ended_;
      cv_.notify_all();
      continue;
    }
    cv_.wait(lock, [&] { return ended_ != ended || !queue_.empty(); });
  }
}

}  // namespace seer::predictor
