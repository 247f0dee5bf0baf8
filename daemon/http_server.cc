#include "daemon/http_server.h"

#include <httplib.h>

#include "daemon/dashboard.h"

namespace seer::daemon {

HttpServer::HttpServer() = default;

HttpServer::~HttpServer() { Stop(); }

Status HttpServer::Start(const std::string& host, int port, HttpHandlers handlers) {
  handlers_ = std::move(handlers);
  server_ = std::make_unique<httplib::Server>();
  httplib::Server& s = *server_;
  s.Get("/metrics", [this](const httplib::Request&, httplib::Response& res) {
    res.set_content(handlers_.metrics(), "text/plain; version=0.0.4; charset=utf-8");
  });
  s.Get("/findings", [this](const httplib::Request&, httplib::Response& res) {
    res.set_content(handlers_.findings_json(), "application/json");
  });
  s.Get(R"(/findings/([0-9a-f]+))", [this](const httplib::Request& req, httplib::Response& res) {
    // ?format= decides; without it, content negotiation: a browser asks for
    // text/html, curl and scripts for anything (*/*) and get text.
    bool html = req.get_header_value("Accept").find("text/html") != std::string::npos;
    if (req.has_param("format")) {
      const std::string format = req.get_param_value("format");
      if (format != "html" && format != "text") {
        res.status = 400;
        res.set_content("format is html or text, not '" + format + "'\n", "text/plain; charset=utf-8");
        return;
      }
      html = format == "html";
    }
    std::string body, type;
    if (!handlers_.finding_report(req.matches[1], html, &body, &type)) {
      res.status = 404;
      res.set_content("no finding " + std::string(req.matches[1]) + "\n", "text/plain; charset=utf-8");
      return;
    }
    res.set_content(body, type);
  });
  // Browsers ask for it on every page without an icon link (the findings' HTML
  // reports): no content, rather than a 404 in their consoles.
  s.Get("/favicon.ico", [](const httplib::Request&, httplib::Response& res) { res.status = 204; });
  s.Get("/", [](const httplib::Request&, httplib::Response& res) {
    res.set_content(DashboardPage(), "text/html; charset=utf-8");
  });
  if (port == 0) {
    port_ = s.bind_to_any_port(host.c_str());
    if (port_ <= 0) return Status::IOError("cannot listen on " + host + " (any port)");
  } else {
    if (!s.bind_to_port(host.c_str(), port))
      return Status::IOError("cannot listen on " + host + ":" + std::to_string(port) +
                             " (in use, or not an address of this machine)");
    port_ = port;
  }
  thread_ = std::thread([this] { server_->listen_after_bind(); });
  return Status::Ok();
}

void HttpServer::Stop() {
  if (server_ != nullptr) server_->stop();
  if (thread_.joinable()) thread_.join();
}

}  // namespace seer::daemon
