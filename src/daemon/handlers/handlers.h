// What tqd's request handlers share: the routing entry point, who may call, and the helpers
// several handlers use. Each handler is a file of its own, declared only where routes.cc
// lists it; each sees the daemon through a RequestContext and answers through its server, now or
// (wait, cancel) when the tasks end.
#pragma once

#include <functional>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "core/jobs/job_status.h"
#include "core/proto/protocol.h"
#include "core/proto/task_selector.h"
#include "daemon/handlers/request_context.h"

namespace tq {

/// Routes a decoded request from `peer` on `conn` to its handler by the table in routes.cc, or
/// refuses it (kPermission) when `peer` may not send it.
void HandleRequest(RequestContext& ctx, ConnId conn, const Owner& peer, const Request& request);

/// Who may send a request.
enum class Caller {
  kAnyUser,  ///< anyone who reaches the socket; handlers show each user only their own tasks
  kAdmin,    ///< only an admin: root, the daemon's own user or admin_group (AccessOf)
};
/// Who may send a request only an admin may send.
template <typename T>
Caller AdminOnly(const T&) {
  return Caller::kAdmin;
}
/// Who may send a queue request: anyone may list the queues, only an admin change them.
Caller QueueCaller(const QueueRequest& r);

/// Answers one submit of a group commit with its outcome, and acts on what it ended.
void AnswerSubmit(RequestContext& ctx, ConnId conn, const SubmitItem& item,
                  const Result<SubmitOutcome>& outcome);

/// True when `queue`, which the store just made (`made`), is one nobody set up: not the default
/// queue and not in tqd.toml, so only max_running caps it (the client says so).
bool IsNewUncappedQueue(RequestContext& ctx, const std::string& queue, bool made);
/// Decides where `spec` runs (SPEC 12): its run_on from its queue's hosts and the host its
/// submitter asked for; a host the queue does not allow, or that the store does not know, is
/// refused, changing nothing. `known` holds the store's host names once read (one read per
/// request, however many tasks it brings).
Status PlaceSpec(RequestContext& ctx, TaskSpec& spec,
                 std::optional<std::vector<std::string>>& known);

/// What keeps pending tasks from starting now, read once for a whole answer.
struct Blockers {
  std::set<std::string> paused;              ///< the queues paused at run time
  UnitsHeld held;                            ///< the resource units running attempts hold
  std::map<uint32_t, int> running_by_owner;  ///< running tasks per owner uid
  /// With a shared store, the hosts that are not live: their state (silent, stopped, fenced).
  std::map<std::string, std::string> hosts_away;
};
/// The blockers as the store has them now.
Blockers BlockersNow(RequestContext& ctx);

/// What pending `task` waits for, as list and status show it: {"until": its not_before while
/// in the future, else null; "after": its unfinished dependencies; "queue_paused": whether its
/// queue is among the paused; "held": whether `tq hold` keeps it; "units": the first resource
/// whose free units are too few for it, else null; "user_max_running": its owner's own
/// max_running when that many of the owner's tasks run, else null; "not_started": why its last
/// pick did not start it (a full disk), else null; "host": {"name", "state"} of the host it is
/// placed on when that host is not live (SPEC 12), else null}.
nlohmann::json WaitingJson(RequestContext& ctx, const Task& task, const Blockers& blockers);
/// TaskToJson, with "waiting" when the task is pending.
nlohmann::json TaskWithWaiting(RequestContext& ctx, const Task& task);

/// The job files' load errors for a `jobs` or `reload` answer, adding their size to `bytes`:
/// those that fit half a list page (kMaxListPageBytes), in order; the rest are left out.
nlohmann::json LoadErrorsJson(const std::vector<JobLoadError>& errors, size_t& bytes);

/// Job `name` if `peer` may see it (an admin, or the user its runs belong to); otherwise
/// kNotFound, as for a job that does not exist, so job names cannot be probed. A NAME that is no
/// job of the job files is looked up as the caller's own PEER/NAME too.
Result<JobInfo> VisibleJob(RequestContext& ctx, const Owner& peer, const std::string& name);

/// Task `id` if `peer` may see it (AccessRules::For(peer).Sees); otherwise kNotFound, so ids of
/// other users cannot be probed.
Result<Task> VisibleTask(RequestContext& ctx, const Owner& peer, TaskId id);
/// The visible tasks for `ids`, without their stdin and environment (Store::GetSummary), a
/// group's id standing for its shards (SPEC 12), or the first not-found error (nothing is done
/// then).
Result<std::vector<Task>> VisibleTasks(RequestContext& ctx, const Owner& peer,
                                       const std::vector<TaskId>& ids);

/// `ids` with the id of each group (SPEC 12) that `peer` may see replaced by its shards' ids, in
/// order.
std::vector<TaskId> WithShards(RequestContext& ctx, const Owner& peer,
                               const std::vector<TaskId>& ids);
/// Whose tasks `peer` acts on when naming `user`, as one uid, or nullopt for everyone's. Naming
/// no one, a user acts on their own tasks; so do root and admins unless `everyone_by_default`
/// (a listing). Only those who see every task may name another user (kPermission saying they
/// may not `verb` them); a user that does not exist is kNotFound.
Result<std::optional<uint32_t>> OwnerFilterFor(RequestContext& ctx, const Owner& peer,
                                               const std::optional<std::string>& user,
                                               const char* verb, bool everyone_by_default);
/// What WalkSelected hands each page to; an error stops the walk.
using SelectedPage = std::function<Status(const std::vector<Task>&)>;
/// What WalkSelected and SelectTasks end with: the first error, or Ok.
using SelectionDone = std::function<void(const Status&)>;
/// Calls `page` with the tasks `select` names, without their stdin and environment: the
/// visible tasks of its ids in one page (or the first not-found error, and no page), or the
/// tasks matching its filters (the caller's own unless it names a user) in pages newest first,
/// state by state (`defaults` when it names none), then `done`. A selection by filters is read a
/// page per pass of the event loop, so that other requests go on meanwhile (SPEC 6); its
/// connection `conn` is busy until `done`. `page` may delete the tasks it is given.
void WalkSelected(RequestContext& ctx, ConnId conn, const Owner& peer, const TaskSelector& select,
                  const std::vector<TaskState>& defaults, const char* verb, SelectedPage page,
                  SelectionDone done);
/// Every task `select` names (WalkSelected's pages together), handed to `then`: its ids' tasks
/// in their order, or the tasks its filters match oldest first; kLimit when the filters match
/// more than kMaxWaitIds, so that one answer can name them all.
void SelectTasks(RequestContext& ctx, ConnId conn, const Owner& peer, const TaskSelector& select,
                 const std::vector<TaskState>& defaults, const char* verb,
                 std::function<void(Result<std::vector<Task>>)> then);
/// Calls `slice` with `ids` at most `size` at a time, in order, a slice per pass of the event
/// loop (SPEC 6), then `done` with Ok or the first error `slice` returned (the slices after it
/// are not done).
void InSlices(RequestContext& ctx, std::vector<TaskId> ids, size_t size,
              std::function<Status(const std::vector<TaskId>&)> slice, SelectionDone done);
/// The ids of `tasks`, in order.
std::vector<TaskId> IdsOf(const std::vector<Task>& tasks);

}  // namespace tq
