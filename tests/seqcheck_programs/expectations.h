// The expected verdict of a SeqCheck program, read from markers in its source
// (README.md): the deadlock cycles and atomicity violations it must be reported
// with, by source line, and how it is recorded.
#pragma once

#include <map>
#include <set>
#include <string>
#include <vector>

namespace seer::test {

// `seer-deadlock: <label> threads=<k>`: a cycle of k threads and k locks. Its
// acquisitions are marked `DEADLOCK(<label>) held` (where a cycle thread took the
// lock it holds) and `DEADLOCK(<label>) blocked` (where it waits for the next one).
struct ExpectedDeadlock {
  std::string label;
  int threads = 0;
  std::set<int> held_lines;
  std::set<int> blocked_lines;
};

// `seer-atomicity: <label> <pattern>` with `ATOMICITY(<label>) first|remote|second`
// on the lines of the two local accesses and the intruding one (several roles may
// share a line).
struct ExpectedAtomicity {
  std::string label;
  std::string pattern;  // "read-write-read", ...
  int first_line = 0;
  int remote_line = 0;
  int second_line = 0;
};

struct ProgramExpectations {
  std::string file;                       // the source's basename, as reports name it
  std::vector<std::string> record_modes;  // `seer-record: ebpf inproc`
  bool none = false;                      // `seer-expect: none`: neither deadlocks nor atomicity violations
  std::vector<ExpectedDeadlock> deadlocks;
  std::vector<ExpectedAtomicity> atomicity;
  // `seer-known-failure: <label> <why>`: seer misses this finding; the test says so
  // loudly and fails once it is reported.
  std::map<std::string, std::string> known_failures;
  // `seer-known-false-positive: <label> <why>`: seer reports this finding though
  // no bug is behind it; declared like a finding, the test says so loudly, and
  // fails once it is no longer reported.
  std::map<std::string, std::string> known_false_positives;
};

// Parses the markers of `path`. On a malformed file (an undeclared label, a
// declared one without its lines, `none` with findings, no record mode) returns
// false with the reason in *error.
bool ParseProgramExpectations(const std::string& path, ProgramExpectations* out, std::string* error);

}  // namespace seer::test
