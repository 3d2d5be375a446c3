// The whole of `tq web` behind its HTTP server: sign-in with the token and sign-out, the JSON
// API, the event stream, the page and its assets. Nothing answers a request whose Host does not
// name the console, nothing but /login answers without a session the request's peer may use.
#pragma once

#include <atomic>
#include <memory>

#include "cli/web/http_server.h"
#include "cli/web/web_access.h"
#include "cli/web/web_api.h"

namespace tq {

/// Routes each request of the console (its handler, shared by the server's threads).
class WebConsole {
 public:
  WebConsole(std::unique_ptr<WebAccess> access, WebApiContext api);

  /// The answer to `request`.
  HttpResponse Handle(const HttpRequest& request) const;
  /// Whether `peer` holds a live session (the server keeps room for its connections).
  bool PeerHasSession(const HttpPeer& peer) const { return access_->PeerHasSession(peer); }

 private:
  HttpResponse Login(const HttpRequest& request) const;
  HttpResponse Logout(const HttpRequest& request) const;
  /// The console page for `path`, with the CSRF token `csrf` and the link to its plain page.
  HttpResponse Page(std::string_view path, const std::string& csrf) const;
  HttpResponse Events(const WebApiContext& api, const HttpRequest& request) const;

  std::unique_ptr<WebAccess> access_;
  WebApiContext api_;
  /// Event streams open now: each holds a connection to tqd, which serves a user only so many.
  mutable std::atomic<int> open_streams_{0};
};

}  // namespace tq
