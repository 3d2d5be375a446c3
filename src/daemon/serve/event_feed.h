// `tq events -f` (SPEC 7a): the connections that follow task state changes, and the one JSON
// event each change makes. Nothing is kept: a follower sees the changes made while it is
// subscribed, and a follower that stops reading is dropped by the server (max_output_buffer,
// and its user's share of max_buffered_per_uid).
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/model/clock.h"
#include "core/model/task.h"
#include "core/store/store.h"
#include "daemon/serve/server.h"

namespace tq {

/// One state change of a task, as an event shows it.
struct TaskChange {
  TaskId id = 0;
  uint32_t owner_uid = 0;  ///< who may see it: the owner, root and admins
  TaskState state = TaskState::kPending;
  /// submitted, started, retry, stage-succeeded, requeued, unstarted; a terminal task's own
  /// reason (exit, ...)
  std::string reason;
  int attempt = 0;     ///< the attempt started, that failed (retry), or the last one; 0: none
  int exit_code = -1;  ///< -1: not known (left out of the event)
  int signal = 0;      ///< 0: none (left out of the event)
  const TaskSpec* spec = nullptr;  ///< its queue, job and labels; never null when published
  int stage = 0;                   ///< the stage it is at, or that finished (with stages)
};

/// The event of `change` at `time`: {"time" (RFC 3339 UTC), "id", "state", "reason", "attempt",
/// "exit_code" and "signal" when known, "queue", "job" when it is a job's run, "labels", and for
/// a task with stages "stage" (its name) and "stage_index"}.
nlohmann::json EventJson(const TaskChange& change, WallMs time);

/// The change that `task` as it is now makes (its state, reason, last attempt, and its exit
/// when terminal), with `reason` instead of the task's own when given.
TaskChange ChangeOf(const Task& task, const char* reason = nullptr);

/// The subscribers of `events -f` and what is published to them.
class EventFeed {
 public:
  /// Sends one encoded frame (WireText) to a connection; may close it (Server::SendText).
  using Sender = std::function<void(ConnId, std::string_view text)>;
  /// Whether `subscriber` may see a task of `owner_uid` (AccessRules::For(...).Sees).
  using Sees = std::function<bool(const Owner& subscriber, uint32_t owner_uid)>;

  /// A feed reading tasks from `store`, stamping events with `clock`'s wall time.
  EventFeed(Store& store, const Clock& clock, Sender send, Sees sees)
      : store_(store), clock_(clock), send_(std::move(send)), sees_(std::move(sees)) {}

  /// Subscribes `conn` of `peer`: it gets every later change of a task `peer` may see.
  void Add(ConnId conn, const Owner& peer) { subscribers_[conn] = peer; }
  /// Forgets `conn` (it closed).
  void Drop(ConnId conn) { subscribers_.erase(conn); }
  /// Connections subscribed.
  size_t Count() const { return subscribers_.size(); }

  /// Sends `change` to every subscriber who may see its task; nothing is built without one.
  void Publish(const TaskChange& change);
  /// A task was created (a submit, a batch, a job's run): pending, reason "submitted".
  void Created(TaskId id, const Owner& owner, const TaskSpec& spec);
  /// Attempt `attempt` of `task` (as read before it started) started: running, "started".
  void Started(const Task& task, int attempt);
  /// Attempt `attempt` of `task` ended as `outcome` and a retry is scheduled: pending, "retry".
  void Retrying(const Task& task, int attempt, const AttemptOutcome& outcome);
  /// Attempt `attempt` of `task` (as read before) ended its stage with success and the task
  /// waits for its next stage: pending, "stage-succeeded", naming the stage that succeeded.
  void Advanced(const Task& task, int attempt, const AttemptOutcome& outcome);
  /// `task` (as read after its end) reached its terminal state.
  void Ended(const Task& task);
  /// Reads each of `ids` from the store and publishes its state now with `reason` (a task
  /// re-queued by `tq retry`, an attempt undone because its supervisor never started).
  void Reread(const std::vector<TaskId>& ids, const char* reason);

 private:
  Store& store_;
  const Clock& clock_;
  Sender send_;
  Sees sees_;
  std::unordered_map<ConnId, Owner> subscribers_;
};

}  // namespace tq
