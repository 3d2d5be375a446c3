#include "core/proto/task_json.h"
#include "core/proto/wire_bytes.h"
#include "daemon/handlers/handlers.h"
#include "daemon/run/shim_record.h"

namespace tq {

namespace {

// The answer for group `group` (SPEC 12) whose visible shards are `shards`: {"group": {"id",
// "state", "total", "shards": [each one's summary with its "index", "attempts" and "host"]}}.
nlohmann::json GroupAnswer(TaskId group, const std::vector<Task>& shards) {
  std::vector<TaskState> states;
  nlohmann::json list = nlohmann::json::array();
  for (const Task& shard : shards) {
    states.push_back(shard.state);
    nlohmann::json j = TaskSummaryJson(shard);
    j["index"] = shard.spec.shard ? shard.spec.shard->index : 0;
    j["attempts"] = shard.attempt_count;
    // The host of its latest attempt (SPEC 12): where it runs or last ran.
    j["host"] = shard.attempts.empty() || shard.attempts.back().host.empty()
                    ? nlohmann::json()
                    : nlohmann::json(shard.attempts.back().host);
    list.push_back(std::move(j));
  }
  const int total = shards.empty() || !shards[0].spec.shard ? 0 : shards[0].spec.shard->total;
  return {{"group",
           {{"id", group},
            {"state", StateName(GroupState(states))},
            {"total", total},
            {"shards", std::move(list)}}}};
}

}  // namespace

void HandleStatus(RequestContext& ctx, ConnId conn, const Owner& peer, const StatusRequest& r) {
  auto task = VisibleTask(ctx, peer, r.id);
  if (!task.ok() && task.status().code() == ErrorCode::kNotFound) {
    // Not a task's id: a group's, when it stands for shards the caller may see.
    auto group = VisibleTasks(ctx, peer, {r.id});
    if (group.ok() && !group->empty()) {
      ctx.server.Send(conn, OkResponse(GroupAnswer(r.id, *group)));
      return;
    }
  }
  if (!task.ok()) {
    ctx.server.Send(conn, ErrorResponse(task.status()));
    return;
  }
  // The store learns a running attempt's pid when it ends; till then its shim's record has it.
  if (task->state == TaskState::kRunning && !task->attempts.empty() &&
      task->attempts.back().pid == 0) {
    Attempt& running = task->attempts.back();
    auto record = ReadShimRecord(ctx.files.StatusRecord(task->id, running.number));
    if (record.ok() && !record->finished) running.pid = record->pid;
  }
  nlohmann::json j = TaskWithWaiting(ctx, *task);
  std::vector<std::string> names;
  for (const std::string& entry : task->spec.env) names.push_back(entry.substr(0, entry.find('=')));
  j["env_names"] = BytesListToJson(names);
  if (r.env) j["env"] = BytesListToJson(task->spec.env);
  ctx.server.Send(conn, OkResponse({{"task", std::move(j)}}));
}

}  // namespace tq
