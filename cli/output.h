// What every subcommand does with its results and errors: one `seer: <message>`
// line on stderr for an error (exit code 2), and output to a file or stdout.
#pragma once

#include <cstdio>
#include <string>

#include "seer/status.h"

namespace seer::cli {

// Prints `seer: <status>` on stderr and returns the usage/input-error exit code.
int Fail(const Status& status);

// Prints `seer: warning: <message>` on stderr.
void Warn(const std::string& message);

// Writes `text` to the file at `path` (stdout when empty or "-") and closes it,
// reporting a failed write.
Status WriteOutput(const std::string& path, const std::string& text);

// An output file, or stdout when the path is empty or "-".
class Output {
 public:
  Output() = default;
  ~Output();
  Output(const Output&) = delete;
  Output& operator=(const Output&) = delete;

  Status Open(const std::string& path);
  std::FILE* file() const { return file_; }
  Status Write(const std::string& text);
  // Flushes and closes; reports a failed write (disk full) that fwrite hid.
  Status Close();

 private:
  std::string path_;
  std::FILE* file_ = nullptr;
  bool owned_ = false;
};

}  // namespace seer::cli
