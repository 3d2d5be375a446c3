#include "daemon/handlers/handlers.h"

namespace tq {

void HandleSubmit(Daemon& d, ConnId conn, const Owner& peer, const SubmitRequest& r) {
  TaskSpec spec = r.spec;
  spec.retry = d.RetryPolicyFor(spec.queue, r.retry);
  auto out = d.store().Submit(peer, spec, d.clock().WallNow(), r.supersede_running);
  if (!out.ok()) {
    d.server().Send(conn, ErrorResponse(out.status()));
    return;
  }
  if (out->refused_newer) {
    nlohmann::json refusal =
        ErrorResponse(Status(ErrorCode::kSuperseded, "version",
                             "version " + std::to_string(spec.version) + " of key " + *spec.key +
                                 " is superseded by task " + std::to_string(out->id)));
    refusal["id"] = out->id;
    d.server().Send(conn, refusal);
    return;
  }
  d.server().Send(conn, OkResponse({{"id", out->id}}));
  d.NotifyTerminal(out->ended);
  for (TaskId old : out->to_terminate) d.StopRunning(old, TaskReason::kSuperseded);
  if (out->inserted) d.ScheduleDispatch();
}

}  // namespace tq
