// The wire protocol of SPEC 9, shared by tq and tqd: one struct per request, their JSON
// encoding, and the response envelope. Framing lives in framing.h.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/model/status.h"
#include "core/model/task.h"

namespace tq {

/// The protocol version this build speaks; the daemon also serves kProtoVersion - 1 when that
/// version exists (is at least kMinProtoVersion).
constexpr int kProtoVersion = 1;
/// The first protocol version there ever was.
constexpr int kMinProtoVersion = 1;

/// Retry settings given with a submit; those left unset come from the queue's defaults.
struct RetryOverrides {
  std::optional<int> retries;
  std::optional<BackoffKind> backoff;
  std::optional<int64_t> base_ms;
  std::optional<int64_t> max_ms;
  std::optional<bool> jitter;
  std::optional<std::vector<int>> retry_on_exit;
  std::optional<std::vector<int>> no_retry_on_exit;
};

/// `defaults` with every set field of `overrides` applied.
RetryPolicy ApplyOverrides(RetryPolicy defaults, const RetryOverrides& overrides);

/// Create a task. Response: {"id": N}; a refusal by a newer version is error "superseded" with
/// the newer task's id in "id".
struct SubmitRequest {
  TaskSpec spec;
  RetryOverrides retry;
  bool supersede_running = false;  ///< also cancel a running older version of the key
};
/// Create many tasks in one transaction, all or nothing. Each element of `tasks` holds the
/// fields of a submit request that differ from `common` (usually argv or shell). Response:
/// {"ids": [...]}; a refusal names the element as "tasks[N]". At most kMaxBatchTasks tasks and
/// kMaxBatchBytes of merged argv, env, shell and stdin per request (see BatchChunkEnds).
struct SubmitBatchRequest {
  nlohmann::json common = nlohmann::json::object();  ///< sent: SubmitToJson of the shared flags
  std::vector<nlohmann::json> tasks;                 ///< sent: each task's own fields
  /// Filled by DecodeRequest (common + each, checked), which leaves `common` and `tasks` empty.
  std::vector<SubmitRequest> resolved;
};
/// Re-queue failed or cancelled tasks: `ids`, or every failed one (of `queue`) with
/// `all_failed`. Response: {"ids": [...re-queued]}.
struct RetryRequest {
  std::vector<TaskId> ids;
  bool all_failed = false;
  std::optional<std::string> queue;
};
/// Look at or change queues at run time: action "list", "pause", "resume", "set" (with
/// `concurrency`, 0 to clear) or "delete". Only an existing queue (named in tqd.toml or created
/// by a submit) can be changed; delete refuses a queue tqd.toml names or one with pending or
/// running tasks. Response: {"queues": [{"name", "paused", "concurrency", "running"}], "more"}:
/// at most kMaxQueueList queues, by name; "more" says some were left out.
struct QueueRequest {
  std::string action = "list";
  std::string name;
  std::optional<int> concurrency;
};
/// One task with its attempts. Response: {"task": {...}}, with "waiting" as list has it.
struct StatusRequest {
  TaskId id = 0;
};
/// One page of the caller's tasks (every user's for root and the daemon's own user) matching
/// the filters, newest first, older than before_id when set; unset filters match everything.
/// Response: {"tasks": [...], "more": bool}: at most min(limit, kMaxListPage) tasks and about
/// kMaxListPageBytes of them; "more" says tasks older than the last one still match (ask again
/// with before_id = its id). A pending task also carries "waiting": {"until" (a future
/// not_before, or null), "after" (its unfinished dependencies), "queue_paused"}.
struct ListRequest {
  std::optional<TaskState> state;
  std::optional<std::string> queue;
  std::optional<std::string> label;
  std::optional<TaskId> before_id;  ///< only tasks older than this one (the next page)
  int limit = 100;
};
/// Stream: one {"task": {...}} frame per task as it becomes terminal, then {"end": true}.
struct WaitRequest {
  std::vector<TaskId> ids;
};
/// Cancel tasks; the response {"tasks": [TaskSummaryJson...]} comes once all of them are
/// terminal (a summary each, so kMaxWaitIds of them fit one frame).
struct CancelRequest {
  std::vector<TaskId> ids;
};
/// A chunk of one attempt's output from `offset`. Response: {"data", "offset", "eof",
/// "attempt", "state"}; "eof" once that attempt has ended and everything was sent.
struct LogsRequest {
  TaskId id = 0;
  bool stderr_stream = false;
  int64_t offset = 0;
  int attempt = 0;  ///< 1-based attempt number; 0: the latest (logs -f then follows new ones)
};
/// Liveness and versions. Response: {"version", "proto", "pid"}.
struct PingRequest {};

/// Any request.
using Request =
    std::variant<SubmitRequest, StatusRequest, ListRequest, WaitRequest, CancelRequest, LogsRequest,
                 PingRequest, SubmitBatchRequest, RetryRequest, QueueRequest>;

/// The wire name of a request's type ("submit", "queue", ...).
const char* RequestType(const Request& request);
/// The JSON text of a request, with "proto" and "type".
std::string EncodeRequest(const Request& request);
/// Parses and validates a request frame: the protocol version, the type and every field.
/// Unknown fields are ignored; every refusal names the field and what is allowed.
Result<Request> DecodeRequest(std::string_view payload);

/// The wire form of a submit request (also the "common" part of a batch).
nlohmann::json SubmitToJson(const SubmitRequest& request);
/// The submit requests a batch stands for: `common` with each element of `tasks` laid over it,
/// each checked as a submit; a refusal names the element ("tasks[N]: ...") in field "index:N".
/// Nothing is copied. (DecodeRequest checks a request's batch limits before it resolves.)
Result<std::vector<SubmitRequest>> ResolveBatch(const nlohmann::json& common,
                                                const std::vector<nlohmann::json>& tasks);
/// The argv, env, shell and stdin bytes of one task, as counted against kMaxBatchBytes.
size_t SubmitPayloadBytes(const SubmitRequest& request);
/// Where a client cuts a batch into requests the daemon accepts: the end index of each request,
/// each holding at most kMaxBatchTasks tasks, kMaxBatchBytes of SubmitPayloadBytes and half of
/// kMaxJsonValues (a single task over that still goes alone, to be refused by name).
std::vector<size_t> BatchChunkEnds(const std::vector<SubmitRequest>& tasks);

/// The checks tqd makes of a submit request (its wire form, decoded as tqd decodes it), for tq
/// to make before it sends; a refusal names the field as tqd's would.
Status CheckSubmit(const SubmitRequest& request);
/// The fields of a submit request's wire form: every key SubmitToJson may write.
const std::vector<std::string>& SubmitFields();

/// {"ok": true} plus the members of `body`.
nlohmann::json OkResponse(nlohmann::json body = nlohmann::json::object());
/// {"ok": false, "error": {"code", "field", "message"}}.
nlohmann::json ErrorResponse(const Status& status);
/// The Status a response carries (ok, or its error).
Status ResponseStatus(const nlohmann::json& response);

/// The task as the protocol and `--json` show it (SPEC 2 field names, RFC 3339 UTC times).
/// Environment values are never included; "attempt_log" holds the newest kMaxAttemptLog
/// attempts ("attempts" counts them all), so one task always fits a frame.
nlohmann::json TaskToJson(const Task& task);
/// How a task stands, in brief: {"id", "state", "reason", "exit_code", "signal"}.
nlohmann::json TaskSummaryJson(const Task& task);

}  // namespace tq
