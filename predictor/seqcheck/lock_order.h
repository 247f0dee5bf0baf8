// A cheap necessary condition for a deadlock candidate, checked on a window's
// raw events before SeqCheck builds its model of them: the locks' nesting must
// have a cycle. Most windows of a healthy service have none (memcached nests
// its locks one way, and takes the other way only by trylock), and building the model,
// the lock graph and the checkers for them was most of the daemon's analysis
// of such a window. Lossless: the graph here has LockGraph's edges, l -> m
// for every request of m (an acquisition that can block forever) by a thread
// holding l, and the sections it counts as held are TraceModel's: the
// outermost acquire of a lock, of any kind, until its thread's matching
// release. LockGraph::LockCycles cannot find a cycle where this finds none
// (tests/predictor/seqcheck/lock_order_test.cc checks it on random traces and windows).
// It costs a few ns an event, on the window's acquires and releases only.
#pragma once

#include <vector>

#include "seer/event.h"

namespace seer::predictor::seqcheck {

// True when the lock-order graph of `events` (in trace order; carried
// acquires first, as TraceModel takes them) has a cycle of two or more locks.
bool LockOrderHasCycle(const std::vector<Event>& events);

}  // namespace seer::predictor::seqcheck
