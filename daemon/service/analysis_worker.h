// Background analysis of closed windows: one thread at SCHED_IDLE priority
// (it runs on CPU time the target and everything else leave unused) takes the
// windows in the order they closed and hands each result to a callback.
#pragma once

#include <condition_variable>
#include <deque>
#include <functional>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "daemon/service/window_analysis.h"
#include "daemon/service/window_writer.h"
#include "predictor/engine.h"

namespace seer::service {

class AnalysisWorker {
 public:
  // `done` gets each window with its analysis (or the error), and the
  // thread's CPU seconds spent on it.
  using Done = std::function<void(const WindowFile&, const Status&, const WindowAnalysis&, double cpu_seconds)>;

  // `wants_html` is passed to AnalyzeWindow (called from the worker's thread).
  AnalysisWorker(Done done, WantsHtml wants_html);
  ~AnalysisWorker();  // finishes the queued windows, then stops

  void SetEngines(std::vector<const EngineSpec*> engines);
  void Enqueue(const WindowFile& window);
  // Blocks until every window queued so far has been analysed.
  void Drain();

 private:
  void Run();

  const Done done_;
  const WantsHtml wants_html_;
  std::mutex mu_;
  std::condition_variable cv_;
  std::deque<WindowFile> queue_;
  std::vector<const EngineSpec*> engines_;
  bool busy_ = false;
  bool stopping_ = false;
  std::thread thread_;
};

}  // namespace seer::service
