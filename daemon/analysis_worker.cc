#include "daemon/analysis_worker.h"

#include <sys/stat.h>

#include <cerrno>

namespace seer::daemon {

AnalysisWorker::AnalysisWorker(Analyse analyse, Done done)
    : analyse_(std::move(analyse)), done_(std::move(done)), thread_([this] { Run(); }) {}

AnalysisWorker::~AnalysisWorker() { Stop(); }

void AnalysisWorker::SetEngines(std::vector<const predictor::EngineSpec*> engines) {
  std::lock_guard<std::mutex> lock(mu_);
  engines_ = std::move(engines);
}

void AnalysisWorker::Enqueue(const WindowFile& window) {
  {
    std::lock_guard<std::mutex> lock(mu_);
    queue_.push_back(window);
  }
  cv_.notify_all();
}

void AnalysisWorker::Stop() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    stopping_ = true;
  }
  cancel_.store(true);
  cv_.notify_all();
  if (thread_.joinable()) thread_.join();
}

size_t AnalysisWorker::queued() const {
  std::lock_guard<std::mutex> lock(mu_);
  return queue_.size();
}

void AnalysisWorker::Run() {
  std::unique_lock<std::mutex> lock(mu_);
  for (;;) {
    cv_.wait(lock, [this] { return stopping_ || !queue_.empty(); });
    if (stopping_) return;  // what is queued stays counted
    // The window stays at the front while it is analysed: cancelled, it is
    // still one of those left.
    const WindowFile window = queue_.front();
    const std::vector<const predictor::EngineSpec*> engines = engines_;
    lock.unlock();
    struct stat st;
    WindowAnalysis analysis;
    double cpu = 0;
    bool cancelled = false;
    Outcome outcome = Outcome::kRemoved;
    Status status;
    if (stat(window.path.c_str(), &st) == 0 || errno != ENOENT) {
      status = analyse_(window, engines, cancel_, &analysis, &cpu, &cancelled);
      outcome = status.ok() ? Outcome::kAnalysed : Outcome::kFailed;
    }
    if (!cancelled) done_(window, outcome, status, analysis, cpu);
    lock.lock();
    if (!cancelled) queue_.pop_front();
  }
}

}  // namespace seer::daemon
