// The service's HTTP endpoints on cpp-httplib: /metrics (Prometheus text),
// /findings (JSON), /findings/ID (the report of one finding: text, or HTML for
// ?format=html and for browsers, which accept text/html) and / (the
// dashboard). The server runs its own threads; the handlers read the service's
// state, which is thread-safe.
#pragma once

#include <functional>
#include <memory>
#include <string>
#include <thread>

#include "seer/status.h"

namespace httplib {
class Server;
}

namespace seer::daemon {

struct HttpHandlers {
  std::function<std::string()> metrics;
  std::function<std::string()> findings_json;
  // The report of one finding, as HTML when `html` (else text); sets the body
  // and its content type. False: no finding with that id.
  std::function<bool(const std::string& id, bool html, std::string* body, std::string* content_type)> finding_report;
};

class HttpServer {
 public:
  HttpServer();
  ~HttpServer();  // Stop

  // Binds host:port (port 0: any free port, see port()) and serves on a thread.
  Status Start(const std::string& host, int port, HttpHandlers handlers);
  void Stop();
  int port() const { return port_; }

 private:
  std::unique_ptr<httplib::Server> server_;
  HttpHandlers handlers_;
  int port_ = 0;
  std::thread thread_;
};

}  // namespace seer::daemon
