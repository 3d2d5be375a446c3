#include "daemon/handlers/handlers.h"

namespace tq {

void HandleSubmitBatch(Daemon& d, ConnId conn, const Owner& peer, const SubmitBatchRequest& r) {
  std::vector<TaskSpec> specs;
  specs.reserve(r.resolved.size());
  for (const SubmitRequest& one : r.resolved) {
    if (one.spec.key) {
      d.server().Send(conn, ErrorResponse(Status::Invalid(
                                "key",
                                "key: a batch cannot carry keys; submit keyed tasks one "
                                "at a time")));
      return;
    }
    if (Status allowed = d.CheckQueue(peer, one.spec.queue); !allowed.ok()) {
      d.server().Send(conn, ErrorResponse(allowed));
      return;
    }
    specs.push_back(one.spec);
    specs.back().retry = d.RetryPolicyFor(one.spec.queue, one.retry);
  }
  if (Status admitted = d.AdmitSubmits(peer, static_cast<int64_t>(specs.size())); !admitted.ok()) {
    d.server().Send(conn, ErrorResponse(admitted));
    return;
  }
  auto ids = d.store().SubmitBatch(peer, specs, d.clock().WallNow());
  if (!ids.ok()) {
    d.server().Send(conn, ErrorResponse(ids.status()));
    return;
  }
  d.server().Send(conn, OkResponse({{"ids", *ids}}));
  for (size_t i = 0; i < ids->size(); ++i) d.events().Created((*ids)[i], peer, specs[i]);
  d.counters().submitted["submit"] += ids->size();
  d.ScheduleDispatch();
}

}  // namespace tq
