#include "daemon/config.h"

#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <set>
#include <sstream>

#include <toml++/toml.h>

#include "recorder/runtime_modes/watch_options.h"

namespace seer::daemon {

namespace {

// A number followed by an optional unit; *unit gets the rest of the text.
bool SplitNumber(const std::string& text, double* value, std::string* unit) {
  if (text.empty()) return false;
  errno = 0;
  char* end = nullptr;
  *value = std::strtod(text.c_str(), &end);
  if (end == text.c_str() || errno != 0 || !std::isfinite(*value) || *value < 0) return false;
  *unit = end;
  return true;
}

std::string Where(const toml::source_region& r) {
  return r.path ? *r.path + ":" + std::to_string(r.begin.line) : "line " + std::to_string(r.begin.line);
}

// Reads a string or number key as a duration.
Status DurationKey(const toml::node& node, const std::string& key, double* out) {
  if (const auto* s = node.as_string()) {
    Status st = ParseDuration(s->get(), out);
    return st.ok() ? st : Status::InvalidArgument(Where(node.source()) + ": " + key + ": " + st.message());
  }
  if (auto n = node.value<double>(); n && *n >= 0) {
    *out = *n;
    return Status::Ok();
  }
  return Status::InvalidArgument(Where(node.source()) + ": " + key + ": expected a duration such as \"10s\"");
}

Status SizeKey(const toml::node& node, const std::string& key, uint64_t* out) {
  if (const auto* s = node.as_string()) {
    Status st = ParseSize(s->get(), out);
    return st.ok() ? st : Status::InvalidArgument(Where(node.source()) + ": " + key + ": " + st.message());
  }
  if (auto n = node.value<int64_t>(); n && *n >= 0) {
    *out = static_cast<uint64_t>(*n);
    return Status::Ok();
  }
  return Status::InvalidArgument(Where(node.source()) + ": " + key + ": expected a size such as \"1G\"");
}

Status BoolKey(const toml::node& node, const std::string& key, bool* out) {
  if (auto b = node.value<bool>()) {
    *out = *b;
    return Status::Ok();
  }
  return Status::InvalidArgument(Where(node.source()) + ": " + key + ": expected true or false");
}

Status StringKey(const toml::node& node, const std::string& key, std::string* out) {
  if (const auto* s = node.as_string()) {
    *out = s->get();
    return Status::Ok();
  }
  return Status::InvalidArgument(Where(node.source()) + ": " + key + ": expected a string");
}

// A parse error of a key's value, named by file, line and key.
Status InKey(const toml::node& node, const std::string& key, const Status& st) {
  return st.ok() ? st : Status::InvalidArgument(Where(node.source()) + ": " + key + ": " + st.message());
}

Status UnknownKey(const toml::node& node, const std::string& key, const std::string& known) {
  return Status::InvalidArgument(Where(node.source()) + ": unknown key '" + key + "' (known: " + known + ")");
}

Status StringListKey(const toml::node& node, const std::string& key, std::vector<std::string>* out) {
  const auto* arr = node.as_array();
  if (arr == nullptr)
    return Status::InvalidArgument(Where(node.source()) + ": " + key + ": expected an array of strings");
  out->clear();
  for (const auto& item : *arr) {
    const auto* s = item.as_string();
    if (s == nullptr)
      return Status::InvalidArgument(Where(item.source()) + ": " + key + ": expected an array of strings");
    out->push_back(s->get());
  }
  return Status::Ok();
}

Status ReadTarget(const toml::table& t, TargetConfig* target) {
  for (const auto& [k, v] : t) {
    const std::string key(k.str());
    if (key == "pid") {
      auto pid = v.value<int64_t>();
      if (!pid || *pid <= 0 || *pid > INT32_MAX)
        return Status::InvalidArgument(Where(v.source()) + ": target.pid: expected a process id");
      target->pid = static_cast<pid_t>(*pid);
    } else if (key == "name") {
      Status st = StringKey(v, "target.name", &target->name);
      if (!st.ok()) return st;
    } else if (key == "command") {
      Status st = StringListKey(v, "target.command", &target->command);
      if (!st.ok()) return st;
      if (target->command.empty())
        return Status::InvalidArgument(Where(v.source()) + ": target.command: expected an array of strings");
    } else {
      return UnknownKey(v, "target." + key, "pid, name, command");
    }
  }
  return Status::Ok();
}

Status ReadRetention(const toml::table& t, RetentionPolicy* r) {
  for (const auto& [k, v] : t) {
    const std::string key(k.str());
    Status st;
    if (key == "max_windows") {
      auto n = v.value<int64_t>();
      if (!n || *n < 0) return Status::InvalidArgument(Where(v.source()) + ": retention.max_windows: expected a count");
      r->max_windows = static_cast<uint64_t>(*n);
    } else if (key == "max_age") {
      st = DurationKey(v, "retention.max_age", &r->max_age_s);
    } else if (key == "max_size") {
      st = SizeKey(v, "retention.max_size", &r->max_bytes);
    } else if (key == "min_free") {
      st = SizeKey(v, "retention.min_free", &r->min_free_bytes);
    } else {
      return UnknownKey(v, "retention." + key, "max_windows, max_age, max_size, min_free");
    }
    if (!st.ok()) return st;
  }
  return Status::Ok();
}

Status ReadSlurm(const toml::table& t, SlurmConfig* slurm) {
  slurm->on = true;
  for (const auto& [k, v] : t) {
    const std::string key(k.str());
    Status st;
    if (key == "srun") {
      st = StringKey(v, "slurm.srun", &slurm->srun);
      if (st.ok() && slurm->srun.empty())
        st = Status::InvalidArgument(Where(v.source()) + ": slurm.srun: expected a command");
    } else if (key == "partition") {
      st = StringKey(v, "slurm.partition", &slurm->partition);
    } else if (key == "seer") {
      st = StringKey(v, "slurm.seer", &slurm->seer);
    } else if (key == "args") {
      st = StringListKey(v, "slurm.args", &slurm->args);
    } else {
      return UnknownKey(v, "slurm." + key, "srun, partition, seer, args");
    }
    if (!st.ok()) return st;
  }
  return Status::Ok();
}

}  // namespace

std::string TargetConfig::Describe() const {
  if (pid > 0) return "pid " + std::to_string(pid);
  if (!name.empty()) return "name " + name;
  std::string s = "command";
  for (const std::string& a : command) s += " " + a;
  return s;
}

Status ParseDuration(const std::string& text, double* seconds) {
  double v = 0;
  std::string unit;
  if (!SplitNumber(text, &v, &unit))
    return Status::InvalidArgument("'" + text + "' is not a duration (e.g. 10s, 500ms, 2m)");
  if (unit.empty() || unit == "s")
    *seconds = v;
  else if (unit == "ms")
    *seconds = v / 1000;
  else if (unit == "m")
    *seconds = v * 60;
  else if (unit == "h")
    *seconds = v * 3600;
  else if (unit == "d")
    *seconds = v * 86400;
  else
    return Status::InvalidArgument("'" + text + "': unknown unit '" + unit + "' (ms, s, m, h, d)");
  return Status::Ok();
}

Status ParseDutyCycle(const std::string& text, double* on, double* period) {
  if (text == "continuous") {
    *on = *period = 0;
    return Status::Ok();
  }
  const size_t slash = text.find('/');
  if (slash == std::string::npos)
    return Status::InvalidArgument("duty cycle '" + text + "': expected ON/PERIOD such as 2s/60s, or continuous");
  Status st = ParseDuration(text.substr(0, slash), on);
  if (st.ok()) st = ParseDuration(text.substr(slash + 1), period);
  if (!st.ok()) return st.WithContext("duty cycle '" + text + "'");
  if (*on <= 0 || *period <= 0 || *on > *period)
    return Status::InvalidArgument("duty cycle '" + text + "': the on time must be positive and at most the period");
  return Status::Ok();
}

Status ParseListen(const std::string& text, std::string* host, int* port) {
  const size_t colon = text.rfind(':');
  if (colon == std::string::npos)
    return Status::InvalidArgument("listen address '" + text + "': expected HOST:PORT such as 127.0.0.1:9464");
  std::string h = text.substr(0, colon);
  if (h.size() >= 2 && h.front() == '[' && h.back() == ']') h = h.substr(1, h.size() - 2);
  if (h.empty()) h = "127.0.0.1";
  char* end = nullptr;
  const long p = std::strtol(text.c_str() + colon + 1, &end, 10);
  if (colon + 1 == text.size() || *end != '\0' || p < 0 || p > 65535)
    return Status::InvalidArgument("listen address '" + text + "': the port must be a number from 0 to 65535");
  *host = h;
  *port = static_cast<int>(p);
  return Status::Ok();
}

Status ParseSize(const std::string& text, uint64_t* bytes) {
  double v = 0;
  std::string unit;
  if (!SplitNumber(text, &v, &unit)) return Status::InvalidArgument("'" + text + "' is not a size (e.g. 512M, 2G)");
  double scale = 1;
  if (unit.empty() || unit == "B")
    scale = 1;
  else if (unit == "K" || unit == "KiB")
    scale = 1024.0;
  else if (unit == "M" || unit == "MiB")
    scale = 1024.0 * 1024;
  else if (unit == "G" || unit == "GiB")
    scale = 1024.0 * 1024 * 1024;
  else if (unit == "T" || unit == "TiB")
    scale = 1024.0 * 1024 * 1024 * 1024;
  else
    return Status::InvalidArgument("'" + text + "': unknown unit '" + unit + "' (K, M, G, T)");
  *bytes = static_cast<uint64_t>(v * scale);
  return Status::Ok();
}

Status LoadConfigFile(const std::string& path, ServiceConfig* config) {
  toml::table root;
  try {
    root = toml::parse_file(path);
  } catch (const toml::parse_error& e) {
    std::ostringstream where;
    where << e.source().begin.line << ":" << e.source().begin.column;
    return Status::InvalidArgument(path + ":" + where.str() + ": " + std::string(e.description()));
  }
  for (const auto& [k, v] : root) {
    const std::string key(k.str());
    Status st;
    if (key == "listen") {
      std::string text;
      st = StringKey(v, key, &text);
      if (st.ok()) st = InKey(v, key, ParseListen(text, &config->listen_host, &config->listen_port));
    } else if (key == "dir") {
      st = StringKey(v, key, &config->dir);
    } else if (key == "window") {
      st = DurationKey(v, key, &config->window_s);
    } else if (key == "duty") {
      std::string text;
      st = StringKey(v, key, &text);
      if (st.ok()) st = InKey(v, key, ParseDutyCycle(text, &config->duty_on_s, &config->duty_period_s));
    } else if (key == "analyses") {
      st = StringKey(v, key, &config->analyses);
    } else if (key == "spool") {
      st = SizeKey(v, key, &config->spool_bytes);
    } else if (key == "futex_tracepoints") {
      st = BoolKey(v, key, &config->futex_tracepoints);
    } else if (key == "watch") {
      // "2%", "2" or 2; false or 0 turn it off.
      std::string text;
      if (const auto* b = v.as_boolean()) {
        text = b->get() ? "" : "0";
      } else if (const auto* n = v.as_floating_point()) {
        text = std::to_string(n->get());
      } else if (const auto* i = v.as_integer()) {
        text = std::to_string(i->get());
      } else {
        st = StringKey(v, key, &text);
      }
      config->watch_percent = 0;
      if (st.ok() && text != "0") st = InKey(v, key, recorder::ParseWatchShare(text, &config->watch_percent));
    } else if (key == "slurm") {
      const auto* t = v.as_table();
      st = t ? ReadSlurm(*t, &config->slurm)
             : Status::InvalidArgument(Where(v.source()) + ": slurm: expected a table [slurm]");
    } else if (key == "retention") {
      const auto* t = v.as_table();
      st = t ? ReadRetention(*t, &config->retention)
             : Status::InvalidArgument(Where(v.source()) + ": retention: expected a table [retention]");
    } else if (key == "target") {
      const auto* arr = v.as_array();
      if (arr == nullptr) {
        st = Status::InvalidArgument(Where(v.source()) + ": target: expected tables [[target]]");
      } else {
        for (const auto& item : *arr) {
          const auto* t = item.as_table();
          if (t == nullptr) {
            st = Status::InvalidArgument(Where(item.source()) + ": target: expected tables [[target]]");
            break;
          }
          TargetConfig target;
          st = ReadTarget(*t, &target);
          if (!st.ok()) break;
          config->targets.push_back(std::move(target));
        }
      }
    } else {
      st = UnknownKey(v, key,
                      "listen, dir, window, duty, analyses, spool, futex_tracepoints, watch, [retention], "
                      "[slurm], [[target]]");
    }
    if (!st.ok()) return st;  // each message names the file and line already
  }
  return Status::Ok();
}

Status ValidateConfig(const ServiceConfig& config) {
  if (config.dir.empty()) return Status::InvalidArgument("no window directory: give --dir DIR or dir = \"...\"");
  if (config.targets.empty())
    return Status::InvalidArgument("no target: give -p PID, --name EXE, -- PROGRAM ARGS, or [[target]] in the config");
  for (const TargetConfig& t : config.targets) {
    const int set = (t.pid > 0) + !t.name.empty() + !t.command.empty();
    if (set != 1)
      return Status::InvalidArgument("a target needs exactly one of pid, name or command (got " + std::to_string(set) +
                                     ")");
  }
  if (config.window_s <= 0) return Status::InvalidArgument("the window length must be positive");
  if (config.spool_bytes < (16ull << 20)) return Status::InvalidArgument("spool: at least 16M");
  if (config.duty_on_s > config.duty_period_s)
    return Status::InvalidArgument("the duty cycle's on time is longer than its period");
  if (config.listen_port < 0 || config.listen_port > 65535)
    return Status::InvalidArgument("the listen port must be from 0 to 65535");
  return Status::Ok();
}

}  // namespace seer::daemon
