// The HTTP side of `tq web`: libmicrohttpd serving one handler on a listening socket, with
// bounded connections (in all, per peer, room kept for signed-in peers), bounded request sizes,
// a deadline for each request and idle timeouts.
#pragma once

#include <atomic>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "cli/web/connection_guard.h"
#include "cli/web/http_peer.h"
#include "core/model/status.h"

struct MHD_Daemon;

namespace tq {

/// One HTTP request as the handler sees it: the whole body read, within the limits.
struct HttpRequest {
  std::string method;                          ///< "GET", "POST", ...
  std::string path;                            ///< the URL path, percent-decoded
  std::map<std::string, std::string> query;    ///< the query arguments, decoded
  std::map<std::string, std::string> headers;  ///< by lower-case name
  std::map<std::string, std::string> cookies;
  std::string body;
  HttpPeer peer;  ///< who opened the connection
};

/// The next piece of a streamed answer (server-sent events): waits for it; nullopt ends the
/// stream. `stopping` turns true when the server shuts down: the function returns soon after.
using HttpStream = std::function<std::optional<std::string>(const std::atomic<bool>& stopping)>;

/// One HTTP answer: a whole body, or a stream.
struct HttpResponse {
  int status = 200;
  std::string content_type = "text/html; charset=utf-8";
  std::string body;
  std::vector<std::pair<std::string, std::string>> headers;  ///< added to the defaults
  HttpStream stream;  ///< set for an answer that goes on (body ignored)
};

/// What the server serves: one answer per request, called on the connection's own thread.
using HttpHandler = std::function<HttpResponse(const HttpRequest&)>;

/// The bounds of the server: beyond them a client is refused, not served slowly.
struct HttpLimits {
  GuardLimits guard;                ///< connections at once, per peer, and each request's deadline
  size_t body_bytes = 64 * 1024;    ///< a larger request body is answered 413
  size_t header_bytes = 32 * 1024;  ///< the request line and headers of one request
  unsigned idle_timeout_s = 60;     ///< a connection silent this long is closed
};

/// A running server; stopping it (or destroying it) ends every stream and joins its threads.
class HttpServer {
 public:
  /// Serves `handler` on `listen_fd` (bound and listening; the server takes it). A peer for
  /// which `has_session` holds may use the connections kept in reserve. On a Unix socket (a
  /// proxy's) connections are not capped per peer.
  static Result<std::unique_ptr<HttpServer>> Start(int listen_fd, const HttpLimits& limits,
                                                   HttpHandler handler,
                                                   PeerHasSession has_session = nullptr);
  ~HttpServer();
  HttpServer(const HttpServer&) = delete;
  HttpServer& operator=(const HttpServer&) = delete;

  /// Ends the streams and closes every connection; returns once all are gone.
  void Stop();

  struct Connection;  ///< one request in progress (its body read so far)

 private:
  HttpServer(const HttpLimits& limits, HttpHandler handler, PeerHasSession has_session);

  HttpLimits limits_;
  HttpHandler handler_;
  ConnectionGuard guard_;
  std::atomic<bool> stopping_{false};
  MHD_Daemon* daemon_ = nullptr;

  friend struct HttpServerCallbacks;
};

}  // namespace tq
