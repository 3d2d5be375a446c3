#include <algorithm>

#include "core/model/placement.h"
#include "core/model/quote.h"
#include "core/policy/unit_grant.h"
#include "daemon/handlers/handlers.h"

namespace tq {

namespace {

// Stores `shards` shards of `spec` for `peer` as one group (SPEC 12) and answers with their ids.
void SubmitShards(RequestContext& ctx, ConnId conn, const Owner& peer, const TaskSpec& spec,
                  int shards) {
  auto out = ctx.store.SubmitShards(peer, spec, shards, ctx.clock.WallNow());
  if (!out.ok()) {
    ctx.server.Send(conn, ErrorResponse(out.status()));
    return;
  }
  nlohmann::json answer{{"id", out->group}, {"shards", out->ids}};
  if (IsNewUncappedQueue(ctx, spec.queue, out->new_queue)) answer["new_queue"] = true;
  ctx.server.Send(conn, OkResponse(std::move(answer)));
  TaskSpec shard = spec;
  for (size_t i = 0; i < out->ids.size(); ++i) {
    shard.shard = ShardOf{out->group, static_cast<int>(i), shards};
    ctx.events.Created(out->ids[i], peer, shard);
  }
  ctx.ended(out->ended);
  ctx.counters.submitted["submit"] += out->ids.size();
  ctx.dispatch.Schedule();
}

}  // namespace

void HandleSubmit(RequestContext& ctx, ConnId conn, const Owner& peer, const SubmitRequest& r) {
  if (Status admitted = ctx.access.CheckQueue(peer, r.spec.queue); !admitted.ok()) {
    ctx.server.Send(conn, ErrorResponse(admitted));
    return;
  }
  if (Status units = CheckUnitRequest(r.spec.use, ctx.config->unit_pools); !units.ok()) {
    ctx.server.Send(conn, ErrorResponse(units));
    return;
  }
  TaskSpec spec = r.spec;
  std::optional<std::vector<std::string>> known_hosts;
  if (Status placed = PlaceSpec(ctx, spec, known_hosts); !placed.ok()) {
    ctx.server.Send(conn, ErrorResponse(placed));
    return;
  }
  if (Status admitted = ctx.submits.Admit(peer, std::max(r.shards, 1)); !admitted.ok()) {
    ctx.server.Send(conn, ErrorResponse(admitted));
    return;
  }
  spec.retry = ctx.config->RetryFor(spec.queue, r.retry);
  spec.after = WithShards(ctx, peer, spec.after);  // after a group: after every shard of it
  if (r.shards > 0) {
    SubmitShards(ctx, conn, peer, spec, r.shards);
    return;
  }
  ctx.submits.Add(conn, peer, std::move(spec), r.supersede_running);
}

Status PlaceSpec(RequestContext& ctx, TaskSpec& spec,
                 std::optional<std::vector<std::string>>& known) {
  Result<std::string> placed = PlaceTask(ctx.config->Queue(spec.queue).hosts, spec.queue, ctx.host,
                                         spec.run_on, ctx.config->Shared());
  if (!placed.ok()) return placed.status();
  if (!placed->empty() && *placed != ctx.host) {
    // Another host: one the store knows, so the task does not wait for a host that never comes.
    if (!known) {
      auto hosts = ctx.store.Hosts(ctx.clock.WallNow());
      if (!hosts.ok()) return hosts.status();
      known.emplace();
      for (const HostRecord& h : *hosts) known->push_back(h.name);
    }
    if (std::find(known->begin(), known->end(), *placed) == known->end()) {
      return Status::Invalid(
          "host", "host: " + Quote(*placed) +
                      " is no host of this store (its hosts: " + QuoteEach(*known) + ")");
    }
  }
  spec.run_on = std::move(*placed);
  return Status::Ok();
}

bool IsNewUncappedQueue(RequestContext& ctx, const std::string& queue, bool made) {
  return made && queue != kDefaultQueue && !ctx.config->queues.count(queue);
}

void AnswerSubmit(RequestContext& ctx, ConnId conn, const SubmitItem& item,
                  const Result<SubmitOutcome>& out) {
  if (!out.ok()) {
    ctx.server.Send(conn, ErrorResponse(out.status()));
    return;
  }
  if (out->refused_newer) {
    nlohmann::json refusal = ErrorResponse(
        Status(ErrorCode::kSuperseded, "version",
               "version " + std::to_string(item.spec.version) + " of key " + *item.spec.key +
                   " is superseded by task " + std::to_string(out->id)));
    refusal["id"] = out->id;
    ctx.server.Send(conn, refusal);
    return;
  }
  nlohmann::json answer{{"id", out->id}};
  if (IsNewUncappedQueue(ctx, item.spec.queue, out->new_queue)) answer["new_queue"] = true;
  ctx.server.Send(conn, OkResponse(std::move(answer)));
  if (out->inserted) ctx.events.Created(out->id, item.owner, item.spec);
  ctx.ended(out->ended);
  for (TaskId old : out->to_terminate) ctx.dispatch.StopRunning(old, TaskReason::kSuperseded);
  if (out->inserted) {
    ++ctx.counters.submitted["submit"];
    ctx.dispatch.Schedule();
  }
}

}  // namespace tq
