#include "daemon/service/analysis_worker.h"

#include <pthread.h>
#include <sched.h>
#include <time.h>

#include <cstdio>

namespace seer::service {

namespace {

double ThreadCpuSeconds() {
  struct timespec ts;
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return ts.tv_sec + ts.tv_nsec * 1e-9;
}

}  // namespace

AnalysisWorker::AnalysisWorker(Done done, WantsHtml wants_html)
    : done_(std::move(done)), wants_html_(std::move(wants_html)), thread_([this] { Run(); }) {}

AnalysisWorker::~AnalysisWorker() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    stopping_ = true;
  }
  cv_.notify_all();
  thread_.join();
}

void AnalysisWorker::SetEngines(std::vector<const EngineSpec*> engines) {
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

void AnalysisWorker::Drain() {
  std::unique_lock<std::mutex> lock(mu_);
  cv_.wait(lock, [this] { return queue_.empty() && !busy_; });
}

void AnalysisWorker::Run() {
  // Idle priority: a window waits rather than taking CPU from the target.
  struct sched_param param = {};
  if (pthread_setschedparam(pthread_self(), SCHED_IDLE, &param) != 0)
    fprintf(stderr, "seer daemon: cannot run the analysis at idle priority; it runs at normal priority\n");
  std::unique_lock<std::mutex> lock(mu_);
  for (;;) {
    cv_.wait(lock, [this] { return stopping_ || !queue_.empty(); });
    if (queue_.empty()) return;  // stopping, nothing left
    WindowFile window = queue_.front();
    queue_.pop_front();
    std::vector<const EngineSpec*> engines = engines_;
    busy_ = true;
    lock.unlock();
    const double start = ThreadCpuSeconds();
    WindowAnalysis analysis;
    Status st = AnalyzeWindow(window.path, engines, &analysis, wants_html_);
    done_(window, st, analysis, ThreadCpuSeconds() - start);
    lock.lock();
    busy_ = false;
    cv_.notify_all();
  }
}

}  // namespace seer::service
