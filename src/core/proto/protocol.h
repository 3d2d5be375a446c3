// The wire protocol of SPEC 9, shared by tq and tqd: the version, the request frame (the
// table of requests in requests.h gives each type's body), the response envelope and the task
// as responses show it. Framing lives in framing.h.
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "core/model/status.h"
#include "core/proto/requests.h"
#include "core/proto/response.h"
#include "core/proto/task_json.h"

namespace tq {

/// The protocol version this build speaks; the daemon also serves kProtoVersion - 1 when that
/// version exists (is at least kMinProtoVersion).
constexpr int kProtoVersion = 1;
/// The first protocol version there ever was.
constexpr int kMinProtoVersion = 1;

/// The wire name of a request's type ("submit", "queue", ...).
const char* RequestType(const Request& request);
/// A request as a frame carries it: the request, and for whom root sends it ("as_user": a
/// console behind a proxy that names its users, tq web --trust-user-header).
struct Envelope {
  Request request;
  std::optional<std::string> as_user;  ///< a user name; tqd takes it from root only
};

/// The JSON text of a request, with "proto" and "type" (and "as_user" when given).
std::string EncodeRequest(const Request& request,
                          const std::optional<std::string>& as_user = std::nullopt);
/// Parses and validates a request frame: the protocol version, the type, every field and
/// "as_user". Unknown fields are ignored; every refusal names the field and what is allowed.
Result<Envelope> DecodeEnvelope(std::string_view payload);
/// The request of DecodeEnvelope's envelope.
Result<Request> DecodeRequest(std::string_view payload);

}  // namespace tq
