#include "daemon/service_state.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include <nlohmann/json.hpp>

#include "daemon/analysis_json.h"

namespace seer::daemon {

namespace {

using nlohmann::json;

constexpr int kStateVersion = 1;

Status Errno(const std::string& what, const std::string& path) {
  return Status::IOError(what + " " + path + ": " + std::strerror(errno));
}

Status SyncDir(const std::string& dir) {
  const int fd = open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd < 0) return Errno("cannot open", dir);
  const int r = fsync(fd);
  close(fd);
  return r == 0 ? Status::Ok() : Errno("cannot sync", dir);
}

std::string ReportPath(const std::string& dir, const std::string& id) {
  return dir + "/" + kReportsDirName + "/" + id + ".html";
}

// NotFound when there is no such file.
Status ReadWholeFile(const std::string& path, std::string* out) {
  const int fd = open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return errno == ENOENT ? Status::NotFound(path) : Errno("cannot open", path);
  out->clear();
  char buf[65536];
  for (;;) {
    const ssize_t n = read(fd, buf, sizeof buf);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) {
      Status st = Errno("cannot read", path);
      close(fd);
      return st;
    }
    if (n == 0) break;
    out->append(buf, static_cast<size_t>(n));
  }
  close(fd);
  return Status::Ok();
}

json FindingToStateJson(const MergedFinding& m) {
  FindingRecord latest = m.latest;
  latest.html.clear();  // in its own file
  return {{"id", m.id},
          {"first_seen", m.first_seen},
          {"last_seen", m.last_seen},
          {"windows", m.windows},
          {"latest", FindingToJson(latest)}};
}

Status FindingFromStateJson(const json& j, MergedFinding* m) {
  if (!j.is_object()) return Status::Corruption("not an object");
  const json& id = j.value("id", json());
  const json& first = j.value("first_seen", json());
  const json& last = j.value("last_seen", json());
  const json& windows = j.value("windows", json());
  if (!id.is_string() || !first.is_number() || !last.is_number() || !windows.is_number_unsigned() ||
      !j.contains("latest"))
    return Status::Corruption("'id', 'first_seen', 'last_seen', 'windows' or 'latest' is missing or of the wrong type");
  Status st = FindingFromJson(j["latest"], &m->latest);
  if (!st.ok()) return st;
  m->id = id.get<std::string>();
  // The id is a hash of the signature: a mismatch is a damaged entry.
  if (m->id != FindingsRegistry::IdOf(m->latest.signature))
    return Status::Corruption("id " + m->id + " is not that of its signature");
  m->first_seen = first.get<double>();
  m->last_seen = last.get<double>();
  m->windows = windows.get<uint64_t>();
  return Status::Ok();
}

}  // namespace

Status WriteFileAtomically(const std::string& path, const std::string& data) {
  const std::string tmp = path + ".tmp";
  const int fd = open(tmp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
  if (fd < 0) return Errno("cannot create", tmp);
  size_t done = 0;
  while (done < data.size()) {
    const ssize_t n = write(fd, data.data() + done, data.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      Status st = Errno("cannot write", tmp);
      close(fd);
      unlink(tmp.c_str());
      return st;
    }
    done += static_cast<size_t>(n);
  }
  // The data must be on disk before the name points at it.
  if (fsync(fd) != 0) {
    Status st = Errno("cannot sync", tmp);
    close(fd);
    unlink(tmp.c_str());
    return st;
  }
  close(fd);
  if (rename(tmp.c_str(), path.c_str()) != 0) {
    Status st = Errno("cannot rename " + tmp + " to", path);
    unlink(tmp.c_str());
    return st;
  }
  const size_t slash = path.rfind('/');
  return SyncDir(slash == std::string::npos ? "." : path.substr(0, slash));
}

Status SaveServiceState(const std::string& dir, const ServiceState& state) {
  const std::string reports = dir + "/" + kReportsDirName;
  for (const MergedFinding& m : state.findings) {
    if (m.html.empty()) continue;
    const std::string path = ReportPath(dir, m.id);
    struct stat st;
    if (stat(path.c_str(), &st) == 0) continue;  // written once: a finding's page does not change
    if (mkdir(reports.c_str(), 0700) != 0 && errno != EEXIST) return Errno("cannot create", reports);
    Status s = WriteFileAtomically(path, m.html);
    if (!s.ok()) return s;
  }
  json findings = json::array();
  for (const MergedFinding& m : state.findings) findings.push_back(FindingToStateJson(m));
  const json doc = {{"version", kStateVersion}, {"windows_done", state.windows_done}, {"findings", findings}};
  return WriteFileAtomically(dir + "/" + kStateFileName, DumpJson(doc, 1) + "\n");
}

Status LoadServiceState(const std::string& dir, ServiceState* state) {
  *state = ServiceState();
  const std::string path = dir + "/" + kStateFileName;
  std::string text;
  Status read = ReadWholeFile(path, &text);
  if (!read.ok()) return read;
  const json doc = json::parse(text, nullptr, /*allow_exceptions=*/false);
  auto damaged = [&](const std::string& why) {
    *state = ServiceState();
    return Status::Corruption(path + ": " + why);
  };
  if (doc.is_discarded()) return damaged("not JSON (truncated or garbled)");
  if (!doc.is_object() || doc.value("version", json()) != json(kStateVersion))
    return damaged("not a version " + std::to_string(kStateVersion) + " state");
  const json& done = doc.value("windows_done", json());
  const json& findings = doc.value("findings", json());
  if (!done.is_array() || !findings.is_array()) return damaged("'windows_done' or 'findings' is not a list");
  for (const json& name : done) {
    if (!name.is_string()) return damaged("'windows_done' holds a non-name");
    state->windows_done.insert(name.get<std::string>());
  }
  for (size_t i = 0; i < findings.size(); ++i) {
    MergedFinding m;
    Status st = FindingFromStateJson(findings[i], &m);
    if (!st.ok()) return damaged("finding " + std::to_string(i) + ": " + st.message());
    // Without its page (removed by hand, or unreadable) the finding serves
    // its text report until a later window makes the page again.
    if (!ReadWholeFile(ReportPath(dir, m.id), &m.html).ok()) m.html.clear();
    state->findings.push_back(std::move(m));
  }
  return Status::Ok();
}

}  // namespace seer::daemon
