// The request handlers: one per request type, each in its own file. Each answers through the
// daemon's server, now or (wait, cancel) when the tasks end.
#pragma once

#include <set>
#include <string>

#include "core/proto/protocol.h"
#include "daemon/daemon.h"

namespace tq {

/// Routes a decoded request from `peer` on `conn` to its handler by the table in routes.cc, or
/// refuses it (kPermission) when `peer` may not send it.
void HandleRequest(Daemon& d, ConnId conn, const Owner& peer, const Request& request);

/// Who may send a request.
enum class Caller {
  kAnyUser,  ///< anyone who reaches the socket; handlers show each user only their own tasks
  kAdmin,    ///< only an admin: root or the daemon's own user (AccessOf)
};
/// Who may send a queue request: anyone may list the queues, only an admin change them.
Caller QueueCaller(const QueueRequest& r);

// The handlers, one per request type, each in its own file; routes.cc calls them.

void HandleSubmit(Daemon& d, ConnId conn, const Owner& peer, const SubmitRequest& r);
void HandleStatus(Daemon& d, ConnId conn, const Owner& peer, const StatusRequest& r);
void HandleList(Daemon& d, ConnId conn, const Owner& peer, const ListRequest& r);
void HandleWait(Daemon& d, ConnId conn, const Owner& peer, const WaitRequest& r);
void HandleCancel(Daemon& d, ConnId conn, const Owner& peer, const CancelRequest& r);
void HandleLogs(Daemon& d, ConnId conn, const Owner& peer, const LogsRequest& r);
void HandlePing(Daemon& d, ConnId conn, const Owner& peer, const PingRequest& r);
void HandleSubmitBatch(Daemon& d, ConnId conn, const Owner& peer, const SubmitBatchRequest& r);
void HandleRetry(Daemon& d, ConnId conn, const Owner& peer, const RetryRequest& r);
void HandleQueue(Daemon& d, ConnId conn, const Owner& peer, const QueueRequest& r);

/// Answers one submit of a group commit with its outcome, and acts on what it ended.
void AnswerSubmit(Daemon& d, ConnId conn, const SubmitItem& item,
                  const Result<SubmitOutcome>& outcome);

/// What pending `task` waits for, as list and status show it: {"until": its not_before while
/// in the future, else null; "after": its unfinished dependencies; "queue_paused": whether its
/// queue is among `paused`}.
nlohmann::json WaitingJson(Daemon& d, const Task& task, const std::set<std::string>& paused);
/// TaskToJson, with "waiting" when the task is pending.
nlohmann::json TaskWithWaiting(Daemon& d, const Task& task);

/// The visible tasks for `ids`, or the first not-found error (nothing is done then).
Result<std::vector<Task>> VisibleTasks(Daemon& d, const Owner& peer,
                                       const std::vector<TaskId>& ids);

}  // namespace tq
