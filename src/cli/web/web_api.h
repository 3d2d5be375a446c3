// The console's JSON API: each call is one tqd request, checked by the protocol's own decoder
// and sent over tqd's socket with the rights of the user running `tq web`. Reads are GET
// /api/TYPE?q=BODY, changes POST /api/TYPE with the body; only the types below are served.
#pragma once

#include <optional>
#include <string>

#include "cli/client.h"
#include "cli/web/http_server.h"

namespace tq {

/// What the API needs to reach tqd.
struct WebApiContext {
  std::string tqd_socket;  ///< "" = the default socket, as tq finds it
  bool read_only = false;  ///< changes are refused (403)
  /// The user the request is for, as the proxy named them (--trust-user-header); unset: the
  /// user running tq web.
  std::optional<std::string> as_user;
};

/// A connection to tqd for one request of the console, acting for ctx.as_user when set.
Result<Client> ConnectTqd(const WebApiContext& ctx);

/// The answer to GET or POST /api/TYPE: tqd's response as JSON, with an HTTP status from its
/// error code (400 bad value, 403 not allowed, 404 no such task, 502 tqd unreachable).
HttpResponse CallApi(const WebApiContext& ctx, const HttpRequest& request, const std::string& type);

/// GET /api/events: tqd's events stream (`tq events -f`) as server-sent events, one `data:`
/// line of JSON per event, a comment every 15 s of quiet; ends when tqd goes away (the
/// browser's EventSource connects again).
HttpResponse EventStream(const WebApiContext& ctx);

}  // namespace tq
