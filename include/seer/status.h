// Status: the result of an operation that can fail, with a message that carries
// context (file, chunk, line) up to the user. Functions return it; callers check it.
// No exceptions cross module boundaries.
#pragma once

#include <string>
#include <utility>

namespace seer {

class [[nodiscard]] Status {
 public:
  enum class Code {
    kOk = 0,
    kInvalidArgument,  // bad usage or a malformed input the user gave us
    kNotFound,         // a file, process or symbol that does not exist
    kCorruption,       // a trace or input file that is damaged
    kNotSupported,     // a format version or feature we do not handle
    kIOError,          // the OS said no (disk full, permission, ...)
    kPermission,       // missing privileges (root, CAP_BPF, CAP_PERFMON)
    kInternal,         // a bug in seer
  };

  Status() = default;

  static Status Ok() { return Status(); }
  static Status InvalidArgument(std::string msg) { return Status(Code::kInvalidArgument, std::move(msg)); }
  static Status NotFound(std::string msg) { return Status(Code::kNotFound, std::move(msg)); }
  static Status Corruption(std::string msg) { return Status(Code::kCorruption, std::move(msg)); }
  static Status NotSupported(std::string msg) { return Status(Code::kNotSupported, std::move(msg)); }
  static Status IOError(std::string msg) { return Status(Code::kIOError, std::move(msg)); }
  static Status Permission(std::string msg) { return Status(Code::kPermission, std::move(msg)); }
  static Status Internal(std::string msg) { return Status(Code::kInternal, std::move(msg)); }

  bool ok() const { return code_ == Code::kOk; }
  Code code() const { return code_; }
  const std::string& message() const { return message_; }

  // "corruption: run.seer: chunk 3: ..." -- the form printed to the user.
  std::string ToString() const;

  // Returns a copy with `context` prepended ("context: message"); for adding the
  // file name or line number as an error travels up.
  Status WithContext(const std::string& context) const {
    if (ok()) return *this;
    return Status(code_, context + ": " + message_);
  }

 private:
  Status(Code code, std::string msg) : code_(code), message_(std::move(msg)) {}

  Code code_ = Code::kOk;
  std::string message_;
};

inline std::string Status::ToString() const {
  switch (code_) {
    case Code::kOk: return "ok";
    case Code::kInvalidArgument: return "invalid argument: " + message_;
    case Code::kNotFound: return "not found: " + message_;
    case Code::kCorruption: return "corruption: " + message_;
    case Code::kNotSupported: return "not supported: " + message_;
    case Code::kIOError: return "I/O error: " + message_;
    case Code::kPermission: return "permission denied: " + message_;
    case Code::kInternal: return "internal error (a bug in seer): " + message_;
  }
  return message_;
}

}  // namespace seer
