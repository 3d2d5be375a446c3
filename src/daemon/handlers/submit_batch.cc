#include <set>

#include "core/policy/unit_grant.h"
#include "daemon/handlers/handlers.h"

namespace tq {

void HandleSubmitBatch(RequestContext& ctx, ConnId conn, const Owner& peer,
                       const SubmitBatchRequest& r) {
  std::vector<TaskSpec> specs;
  specs.reserve(r.resolved.size());
  std::optional<std::vector<std::string>> known_hosts;
  for (const SubmitRequest& one : r.resolved) {
    if (one.spec.key) {
      ctx.server.Send(conn, ErrorResponse(Status::Invalid(
                                "key",
                                "key: a batch cannot carry keys; submit keyed tasks one "
                                "at a time")));
      return;
    }
    if (one.shards > 0) {
      ctx.server.Send(conn, ErrorResponse(Status::Invalid(
                                "shards",
                                "shards: a batch cannot carry sharded work; submit it on its "
                                "own")));
      return;
    }
    if (Status allowed = ctx.access.CheckQueue(peer, one.spec.queue); !allowed.ok()) {
      ctx.server.Send(conn, ErrorResponse(allowed));
      return;
    }
    if (Status units = CheckUnitRequest(one.spec.use, ctx.config->unit_pools); !units.ok()) {
      ctx.server.Send(conn, ErrorResponse(units));
      return;
    }
    specs.push_back(one.spec);
    if (Status placed = PlaceSpec(ctx, specs.back(), known_hosts); !placed.ok()) {
      ctx.server.Send(conn, ErrorResponse(placed));
      return;
    }
    specs.back().retry = ctx.config->RetryFor(one.spec.queue, one.retry);
    specs.back().after = WithShards(ctx, peer, one.spec.after);
  }
  if (Status admitted = ctx.submits.Admit(peer, static_cast<int64_t>(specs.size()));
      !admitted.ok()) {
    ctx.server.Send(conn, ErrorResponse(admitted));
    return;
  }
  // The queues the batch brings that the store does not have yet.
  std::set<std::string> queues;
  for (const TaskSpec& spec : specs) queues.insert(spec.queue);
  if (auto known = ctx.store.QueueStates(); known.ok())
    for (const QueueState& q : *known) queues.erase(q.name);
  auto ids = ctx.store.SubmitBatch(peer, specs, ctx.clock.WallNow());
  if (!ids.ok()) {
    ctx.server.Send(conn, ErrorResponse(ids.status()));
    return;
  }
  nlohmann::json answer{{"ids", *ids}};
  for (const std::string& queue : queues)
    if (IsNewUncappedQueue(ctx, queue, true)) answer["new_queues"].push_back(queue);
  ctx.server.Send(conn, OkResponse(std::move(answer)));
  for (size_t i = 0; i < ids->size(); ++i) ctx.events.Created((*ids)[i], peer, specs[i]);
  ctx.counters.submitted["submit"] += ids->size();
  ctx.dispatch.Schedule();
}

}  // namespace tq
