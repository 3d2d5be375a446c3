#include "core/proto/wire_bytes.h"
#include "daemon/handlers/handlers.h"
#include "daemon/run/shim_record.h"

namespace tq {

void HandleStatus(RequestContext& ctx, ConnId conn, const Owner& peer, const StatusRequest& r) {
  auto task = VisibleTask(ctx, peer, r.id);
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
