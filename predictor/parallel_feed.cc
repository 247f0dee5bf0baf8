#include "predictor/parallel_feed.h"

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <iterator>
#include <numeric>
#include <utility>

namespace seer::predictor {

std::vector<int> PlaceLanes(const std::vector<double>& costs, unsigned threads) {
  std::vector<size_t> order(costs.size());
  std::iota(order.begin(), order.end(), size_t{0});
  std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) { return costs[a] > costs[b]; });
  std::vector<double> load(std::max(threads, 1u), 0.0);
  std::vector<int> thread(costs.size(), 0);
  for (size_t lane : order) {
    const auto least = std::min_element(load.begin(), load.end());
    thread[lane] = static_cast<int>(least - load.begin());
    *least += costs[lane];
  }
  return thread;
}

ParallelFeed::ParallelFeed(JobPool* pool, const std::vector<Engine*>& engines, const std::vector<double>& costs,
                           size_t max_events)
    : pool_(pool), max_events_(max_events) {
  // Each engine stays on one thread, whose caches hold its state.
  const std::vector<int> thread = PlaceLanes(costs, pool->threads());
  for (size_t i = 0; i < engines.size(); ++i) {
    lanes_.push_back(std::make_unique<Lane>());
    lanes_.back()->engine = engines[i];
    lanes_.back()->thread = thread[i];
  }
}

ParallelFeed::~ParallelFeed() {
  if (closed_) return;
  Append(nullptr);
  std::unique_lock<std::mutex> lock(mu_);
  cv_.wait(lock, [&] { return std::all_of(lanes_.begin(), lanes_.end(), [](const auto& l) { return l->done; }); });
}

std::vector<Event> ParallelFeed::Spare() {
  std::lock_guard<std::mutex> lock(mu_);
  if (spare_.empty()) return {};
  std::vector<Event> v = std::move(spare_.back());
  spare_.pop_back();
  return v;
}

SharedBatch ParallelFeed::Share(std::vector<Event> events) {
  const size_t n = events.size();
  {
    std::lock_guard<std::mutex> lock(mu_);
    in_flight_ += n;
  }
  return SharedBatch(new std::vector<Event>(std::move(events)), [this, n](const std::vector<Event>* p) {
    std::unique_ptr<std::vector<Event>> freed(const_cast<std::vector<Event>*>(p));
    std::lock_guard<std::mutex> lock(mu_);
    in_flight_ -= n;
    // The decoder holds at most the bound's worth of batches: so many spares.
    spare_.push_back(std::move(*freed));
    cv_.notify_all();
  });
}

void ParallelFeed::Push(const SharedBatch& batch) {
  {
    // The batch itself is counted already: wait for the others to drain.
    std::unique_lock<std::mutex> lock(mu_);
    cv_.wait(lock, [&] { return in_flight_ <= max_events_ || in_flight_ == batch->size(); });
  }
  Append(batch);
}

void ParallelFeed::Append(const SharedBatch& batch) {
  std::vector<Lane*> idle;
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (batch == nullptr) closed_ = true;
    for (auto& lane : lanes_) {
      lane->pending.push_back(batch);
      if (!lane->scheduled) {
        lane->scheduled = true;
        idle.push_back(lane.get());
      }
    }
  }
  for (Lane* lane : idle) pool_->Submit([this, lane] { Run(lane); }, lane->thread);
}

void ParallelFeed::Run(Lane* lane) {
  SharedBatch batch;
  bool finish;
  {
    std::lock_guard<std::mutex> lock(mu_);
    batch = std::move(lane->pending.front());
    lane->pending.pop_front();
    finish = finish_;
  }
  const bool end = batch == nullptr;
  const size_t n = end ? 0 : batch->size();
  if (!end) {
    lane->engine->Process(batch->data(), n);
    batch.reset();  // freed here if this lane was the last to hold it
  } else if (finish) {
    lane->status = lane->engine->Finish(&lane->findings);
  }
  bool again;
  {
    // Notified under the lock: once a lane is done the feed may be destroyed.
    std::lock_guard<std::mutex> lock(mu_);
    lane->processed += n;
    lane->done = end;
    again = !end && !lane->pending.empty();
    if (!again) lane->scheduled = false;
    if (end) cv_.notify_all();
  }
  // One batch per task: the lanes take turns on the threads.
  if (again) pool_->Submit([this, lane] { Run(lane); }, lane->thread);
}

Status ParallelFeed::Finish(std::vector<Findings>* each, size_t* failed, const std::function<void(uint64_t)>& waiting) {
  {
    std::lock_guard<std::mutex> lock(mu_);
    finish_ = true;
  }
  Append(nullptr);
  {
    std::unique_lock<std::mutex> lock(mu_);
    const auto all_done = [&] {
      return std::all_of(lanes_.begin(), lanes_.end(), [](const auto& l) { return l->done; });
    };
    // The lanes may hold up to max_events_ events still to go through, and
    // windows to decide: whoever watches hears how far they are meanwhile.
    while (!cv_.wait_for(lock, std::chrono::milliseconds(200), all_done)) {
      if (!waiting) continue;
      const uint64_t least = LeastProcessed();
      lock.unlock();
      waiting(least);
      lock.lock();
    }
  }
  for (size_t i = 0; i < lanes_.size(); ++i) {
    if (!lanes_[i]->status.ok()) {
      *failed = i;
      return lanes_[i]->status;
    }
  }
  each->clear();
  for (auto& lane : lanes_) each->push_back(std::move(lane->findings));
  return Status::Ok();
}

uint64_t ParallelFeed::processed() const {
  std::lock_guard<std::mutex> lock(mu_);
  return LeastProcessed();
}

uint64_t ParallelFeed::LeastProcessed() const {
  uint64_t least = UINT64_MAX;
  for (const auto& lane : lanes_) least = std::min(least, lane->processed);
  return lanes_.empty() ? 0 : least;
}

}  // namespace seer::predictor
