#include "daemon/handlers/handlers.h"

namespace tq {

void HandleSubmit(Daemon& d, ConnId conn, const Owner& peer, const SubmitRequest& r) {
  if (Status admitted = d.CheckQueue(peer, r.spec.queue); !admitted.ok()) {
    d.server().Send(conn, ErrorResponse(admitted));
    return;
  }
  if (Status admitted = d.AdmitSubmits(peer, 1); !admitted.ok()) {
    d.server().Send(conn, ErrorResponse(admitted));
    return;
  }
  TaskSpec spec = r.spec;
  spec.retry = d.RetryPolicyFor(spec.queue, r.retry);
  d.QueueSubmit(conn, peer, std::move(spec), r.supersede_running);
}

void AnswerSubmit(Daemon& d, ConnId conn, const SubmitItem& item,
                  const Result<SubmitOutcome>& out) {
  if (!out.ok()) {
    d.server().Send(conn, ErrorResponse(out.status()));
    return;
  }
  if (out->refused_newer) {
    nlohmann::json refusal = ErrorResponse(
        Status(ErrorCode::kSuperseded, "version",
               "version " + std::to_string(item.spec.version) + " of key " + *item.spec.key +
                   " is superseded by task " + std::to_string(out->id)));
    refusal["id"] = out->id;
    d.server().Send(conn, refusal);
    return;
  }
  d.server().Send(conn, OkResponse({{"id", out->id}}));
  if (out->inserted) d.events().Created(out->id, item.owner, item.spec);
  d.NotifyTerminal(out->ended);
  for (TaskId old : out->to_terminate) d.StopRunning(old, TaskReason::kSuperseded);
  if (out->inserted) {
    ++d.counters().submitted["submit"];
    d.ScheduleDispatch();
  }
}

}  // namespace tq
