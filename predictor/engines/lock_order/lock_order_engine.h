// Lock-order inversions, as ThreadSanitizer and Helgrind report them: a cycle in
// the order the trace's threads take their locks (A then B somewhere, B then A
// elsewhere), whichever threads took them, one thread included. It is not a
// predicted deadlock: the deadlock engine decides whether threads of this run
// can block each other (a witness schedule), and finds none when one thread
// takes both orders. An inversion says that two code paths disagree on the
// order, so that threads running both can deadlock. Cycles whose every
// acquisition happened under one common other lock (a gate lock) cannot block
// and are not reported.
#pragma once

#include <memory>

#include "predictor/engine.h"

namespace seer::predictor {

std::unique_ptr<Engine> NewLockOrderEngine(const AnalysisOptions& options);

}  // namespace seer::predictor
