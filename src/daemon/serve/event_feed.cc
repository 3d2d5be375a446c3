#include "daemon/serve/event_feed.h"

#include <utility>

#include "core/model/stage_progress.h"
#include "core/model/wall_time.h"
#include "core/proto/response.h"
#include "daemon/host/log.h"

namespace tq {

using nlohmann::json;

json EventJson(const TaskChange& c, WallMs time) {
  json j{{"time", FormatRfc3339Utc(time)},
         {"id", c.id},
         {"state", StateName(c.state)},
         {"reason", c.reason},
         {"attempt", c.attempt}};
  if (c.exit_code >= 0) j["exit_code"] = c.exit_code;
  if (c.signal != 0) j["signal"] = c.signal;
  j["queue"] = c.spec->queue;
  if (c.spec->job) j["job"] = *c.spec->job;
  j["labels"] = c.spec->labels;
  if (!c.spec->stages.empty()) {
    j["stage"] = StageName(*c.spec, c.stage);
    j["stage_index"] = c.stage;
  }
  return j;
}

TaskChange ChangeOf(const Task& task, const char* reason) {
  TaskChange c;
  c.id = task.id;
  c.owner_uid = task.owner.uid;
  c.state = task.state;
  c.reason = reason != nullptr                  ? reason
             : task.reason == TaskReason::kNone ? ""
                                                : TaskReasonName(task.reason);
  c.attempt = task.attempt_count;
  if (IsTerminal(task.state)) {  // a pending or running task's last exit is no longer news
    c.exit_code = task.exit_code;
    c.signal = task.signal;
  }
  c.spec = &task.spec;
  c.stage = task.stage;
  return c;
}

void EventFeed::Publish(const TaskChange& change) {
  if (subscribers_.empty()) return;
  const std::string text = WireText(OkResponse({{"event", EventJson(change, clock_.WallNow())}}));
  // A send may close a connection that does not read (and so Drop it): walk a copy.
  const std::vector<std::pair<ConnId, Owner>> now(subscribers_.begin(), subscribers_.end());
  for (const auto& [conn, peer] : now)
    if (sees_(peer, change.owner_uid)) send_(conn, text);
}

void EventFeed::Created(TaskId id, const Owner& owner, const TaskSpec& spec) {
  if (subscribers_.empty()) return;
  TaskChange c;
  c.id = id;
  c.owner_uid = owner.uid;
  c.state = TaskState::kPending;
  c.reason = "submitted";
  c.spec = &spec;
  Publish(c);
}

void EventFeed::Started(const Task& task, int attempt) {
  if (subscribers_.empty()) return;
  TaskChange c = ChangeOf(task, "started");
  c.state = TaskState::kRunning;
  c.attempt = attempt;
  Publish(c);
}

void EventFeed::Retrying(const Task& task, int attempt, const AttemptOutcome& outcome) {
  if (subscribers_.empty()) return;
  TaskChange c = ChangeOf(task, "retry");
  c.state = TaskState::kPending;
  c.attempt = attempt;
  c.exit_code = outcome.exit_code;
  c.signal = outcome.signal;
  Publish(c);
}

void EventFeed::Advanced(const Task& task, int attempt, const AttemptOutcome& outcome) {
  if (subscribers_.empty()) return;
  TaskChange c = ChangeOf(task, "stage-succeeded");
  c.state = TaskState::kPending;
  c.attempt = attempt;
  c.exit_code = outcome.exit_code;
  Publish(c);
}

void EventFeed::Ended(const Task& task) {
  if (subscribers_.empty()) return;
  Publish(ChangeOf(task));
}

void EventFeed::Reread(const std::vector<TaskId>& ids, const char* reason) {
  if (subscribers_.empty()) return;
  for (TaskId id : ids) {
    auto task = store_.GetSummary(id);  // without its environment and stdin: events carry neither
    if (!task.ok()) {
      LogWarn("events: task {} cannot be read: {}", id, task.status().message());
      continue;
    }
    Publish(ChangeOf(*task, reason));
  }
}

}  // namespace tq
