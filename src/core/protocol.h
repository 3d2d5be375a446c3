// The wire protocol of SPEC 9, shared by tq and tqd: one struct per request, their JSON
// encoding, and the response envelope. Framing lives in framing.h.
#pragma once

#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/status.h"
#include "core/store.h"
#include "core/task.h"

namespace tq {

/// The protocol version this build speaks; the daemon also serves kProtoVersion - 1.
constexpr int kProtoVersion = 1;

/// Create a task. Response: {"id": N}.
struct SubmitRequest {
  TaskSpec spec;
};
/// One task with its attempts. Response: {"task": {...}}.
struct StatusRequest {
  TaskId id = 0;
};
/// Tasks matching a filter (the owner is the daemon's to set). Response: {"tasks": [...]}.
struct ListRequest {
  ListFilter filter;
};
/// Stream: one {"task": {...}} frame per task as it becomes terminal, then {"end": true}.
struct WaitRequest {
  std::vector<TaskId> ids;
};
/// Cancel tasks; the response {"tasks": [...]} comes once all of them are terminal.
struct CancelRequest {
  std::vector<TaskId> ids;
};
/// A chunk of a task's output from `offset`. Response: {"data", "offset", "eof", "attempt"}.
struct LogsRequest {
  TaskId id = 0;
  bool stderr_stream = false;
  int64_t offset = 0;
};
/// Liveness and versions. Response: {"version", "proto", "pid"}.
struct PingRequest {};

/// Any request.
using Request = std::variant<SubmitRequest, StatusRequest, ListRequest, WaitRequest, CancelRequest,
                             LogsRequest, PingRequest>;

/// The JSON text of a request, with "proto" and "type".
std::string EncodeRequest(const Request& request);
/// Parses and validates a request frame: the protocol version, the type and every field.
/// Unknown fields are ignored; every refusal names the field and what is allowed.
Result<Request> DecodeRequest(std::string_view payload);

/// {"ok": true} plus the members of `body`.
nlohmann::json OkResponse(nlohmann::json body = nlohmann::json::object());
/// {"ok": false, "error": {"code", "field", "message"}}.
nlohmann::json ErrorResponse(const Status& status);
/// The Status a response carries (ok, or its error).
Status ResponseStatus(const nlohmann::json& response);

/// The task as the protocol and `--json` show it (SPEC 2 field names, RFC 3339 UTC times).
/// Environment values are never included.
nlohmann::json TaskToJson(const Task& task);

}  // namespace tq
