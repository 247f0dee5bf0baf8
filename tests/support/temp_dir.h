// A fresh directory of a test's own under the temporary directory, named by
// mkdtemp: nothing an earlier run, another test binary running in parallel or
// another user left in /tmp is reused, followed or deleted.
#pragma once

#include <stdlib.h>

#include <algorithm>
#include <filesystem>
#include <string>

namespace seer::test {

// TMPDIR/PREFIX-XXXXXX, created 0700; `prefix` may carry a test's name ('/'
// of parameterised tests becomes '_'). Empty when it cannot be made.
inline std::string MakeTempDir(std::string prefix) {
  std::replace(prefix.begin(), prefix.end(), '/', '_');
  std::string pattern = (std::filesystem::temp_directory_path() / (prefix + "-XXXXXX")).string();
  return mkdtemp(pattern.data()) == nullptr ? std::string() : pattern;
}

}  // namespace seer::test
