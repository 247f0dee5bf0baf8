#include "cli/output.h"

#include <cerrno>
#include <cstring>

namespace seer::cli {

int Fail(const Status& status) {
  std::fprintf(stderr, "seer: %s\n", status.ToString().c_str());
  return 2;
}

void Warn(const std::string& message) { std::fprintf(stderr, "seer: warning: %s\n", message.c_str()); }

Output::~Output() {
  if (owned_ && file_) std::fclose(file_);
}

Status Output::Open(const std::string& path) {
  if (path.empty() || path == "-") {
    path_ = "stdout";
    file_ = stdout;
    return Status::Ok();
  }
  path_ = path;
  file_ = std::fopen(path.c_str(), "w");
  if (!file_) return Status::IOError(path + ": cannot create: " + std::strerror(errno));
  owned_ = true;
  return Status::Ok();
}

Status Output::Write(const std::string& text) {
  if (std::fwrite(text.data(), 1, text.size(), file_) != text.size())
    return Status::IOError(path_ + ": write failed: " + std::strerror(errno));
  return Status::Ok();
}

Status Output::Close() {
  if (!file_) return Status::Ok();
  int rc = std::fflush(file_);
  int err = errno;
  if (owned_) {
    if (std::fclose(file_) != 0 && rc == 0) {
      rc = -1;
      err = errno;
    }
  }
  file_ = nullptr;
  owned_ = false;
  if (rc != 0) return Status::IOError(path_ + ": write failed: " + std::strerror(err));
  return Status::Ok();
}

Status WriteOutput(const std::string& path, const std::string& text) {
  Output out;
  Status s = out.Open(path);
  if (s.ok()) s = out.Write(text);
  if (s.ok()) s = out.Close();
  return s;
}

}  // namespace seer::cli
