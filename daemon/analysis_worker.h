// Background analysis of closed windows: one thread takes the windows in the
// order they closed, has each analysed (by an Analyse function: the service
// runs it in a child process, analysis_process.h) and hands each result to a
// callback. A stop cancels the analysis in progress rather than waiting for it
// and the queue: what is left is counted, and analysed at the next start.
#pragma once

#include <atomic>
#include <condition_variable>
#include <deque>
#include <functional>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "daemon/window_analysis.h"
#include "daemon/window_writer.h"
#include "predictor/engine.h"

namespace seer::daemon {

class AnalysisWorker {
 public:
  // Analyses one window with `engines`; returns early, with *cancelled set,
  // once `cancel` becomes true. *cpu_seconds: the CPU time it took.
  using Analyse =
      std::function<Status(const WindowFile& window, const std::vector<const predictor::EngineSpec*>& engines,
                           const std::atomic<bool>& cancel, WindowAnalysis* out, double* cpu_seconds, bool* cancelled)>;

  enum class Outcome {
    kAnalysed,
    kFailed,   // the status says why
    kRemoved,  // the window file was gone (retention) before its analysis
  };
  // Called on the worker's thread for each window, in order.
  using Done =
      std::function<void(const WindowFile&, Outcome, const Status&, const WindowAnalysis&, double cpu_seconds)>;

  AnalysisWorker(Analyse analyse, Done done);
  ~AnalysisWorker();  // Stop

  void SetEngines(std::vector<const predictor::EngineSpec*> engines);
  // After Stop the window is only counted in queued().
  void Enqueue(const WindowFile& window);
  // Cancels the analysis in progress, analyses nothing more, joins the thread:
  // returns as soon as the Analyse function has noticed the cancel.
  void Stop();

  // The windows waiting or in analysis; after Stop, those left unanalysed
  // (the queue, the cancelled one, and any enqueued since).
  size_t queued() const;

 private:
  void Run();

  const Analyse analyse_;
  const Done done_;
  mutable std::mutex mu_;
  std::condition_variable cv_;
  std::deque<WindowFile> queue_;  // the front is the one being analysed
  std::vector<const predictor::EngineSpec*> engines_;
  bool stopping_ = false;
  std::atomic<bool> cancel_{false};
  std::thread thread_;
};

}  // namespace seer::daemon
