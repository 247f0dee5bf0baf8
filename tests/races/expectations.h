// The expected verdict of a race-suite program, read from markers in its source:
// `RACE(label)` in a comment on each of the two lines of a race pair (`RACE(label) self`
// when the line races with itself), or `seer-expect: none` for a program without races.
#pragma once

#include <map>
#include <set>
#include <string>
#include <utility>
#include <vector>

namespace seer::test {

struct ExpectedPair {
  std::string label;
  int first_line = 0;  // first_line <= second_line
  int second_line = 0;
};

struct Expectations {
  std::string file;                 // the source's basename, as reports name it
  bool none = false;                // `seer-expect: none`
  std::vector<ExpectedPair> pairs;  // in order of label
  std::set<int> marked_lines;       // every line carrying a RACE marker
  std::string std_lossy;            // `seer-std: lossy <why>`: STD export cannot keep the verdict
  std::string std_known_failure;    // `seer-std: known-failure <why>`: the round trip is broken here
  // The pair is ordered once some read keeps the writer it read from, so engines
  // that keep every read's writer (shb, w3-linear) rightly leave it out; hb and
  // wcp must report it. Two directives: `seer-after-race: <label> <why>` (the read
  // is an earlier race's) and `seer-relaxed-race: <label> <why>` (the read is a
  // relaxed atomic load: a race by C11's rules that no sequentially consistent
  // reordering shows).
  std::map<std::string, std::string> writer_ordered;
  // `seer-known-failure: <engine> <why>`: seer is wrong here and nobody fixed it
  // yet; the test says so loudly, and fails once the engine gets it right.
  std::map<std::string, std::string> known_failures;
};

// Parses the markers of `path`. On a malformed file (a label on one line without
// `self` or on more than two lines, both `none` and RACE markers, neither) returns
// false with the reason in *error.
bool ParseExpectations(const std::string& path, Expectations* out, std::string* error);

}  // namespace seer::test
