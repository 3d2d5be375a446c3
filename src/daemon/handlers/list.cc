#include <algorithm>
#include <set>

#include "core/model/limits.h"
#include "core/model/wall_time.h"
#include "daemon/handlers/handlers.h"

namespace tq {

namespace {

// The store's filter for a list request from `peer`: the wire's filters, and whose tasks (a
// user named by --user: only those who see everyone may name another).
Result<ListFilter> FilterFor(RequestContext& ctx, const Owner& peer, const ListRequest& r) {
  auto owner_uid = OwnerFilterFor(ctx, peer, r.user, "list", true);
  if (!owner_uid.ok()) return owner_uid.status();
  ListFilter filter;
  filter.owner_uid = *owner_uid;
  filter.state = r.state;
  filter.queue = r.queue;
  filter.label = r.label;
  filter.before_id = r.before_id;
  filter.limit = r.limit;
  return filter;
}

}  // namespace

Blockers BlockersNow(RequestContext& ctx) {
  Blockers b;
  if (auto states = ctx.store.QueueStates(); states.ok())
    for (const QueueState& q : *states)
      if (q.paused) b.paused.insert(q.name);
  // Without resources a task's units are missing whatever is held: nothing to read.
  if (ctx.config->unit_pools.empty()) return b;
  if (auto held = HeldUnitsNow(ctx.store); held.ok()) b.held = std::move(*held);
  return b;
}

nlohmann::json WaitingJson(RequestContext& ctx, const Task& task, const Blockers& blockers) {
  nlohmann::json after = nlohmann::json::array();
  if (!task.spec.after.empty()) {
    auto deps = ctx.store.UnfinishedDeps(task.id);
    if (deps.ok()) after = *deps;
  }
  const bool later = task.spec.not_before > ctx.clock.WallNow();
  const std::string units = ShortResource(task.spec.use, ctx.config->unit_pools, blockers.held);
  return {
      {"until", later ? nlohmann::json(FormatRfc3339Utc(task.spec.not_before)) : nlohmann::json()},
      {"after", std::move(after)},
      {"queue_paused", blockers.paused.count(task.spec.queue) > 0},
      {"held", task.on_hold},
      {"units", units.empty() ? nlohmann::json() : nlohmann::json(units)}};
}

nlohmann::json TaskWithWaiting(RequestContext& ctx, const Task& task) {
  nlohmann::json j = TaskToJson(task);
  if (task.state == TaskState::kPending) j["waiting"] = WaitingJson(ctx, task, BlockersNow(ctx));
  return j;
}

void HandleList(RequestContext& ctx, ConnId conn, const Owner& peer, const ListRequest& r) {
  auto wanted = FilterFor(ctx, peer, r);
  if (!wanted.ok()) {
    ctx.server.Send(conn, ErrorResponse(wanted.status()));
    return;
  }
  ListFilter filter = *wanted;
  const size_t page = static_cast<size_t>(std::clamp(filter.limit, 1, kMaxListPage));
  filter.limit = static_cast<int>(page) + 1;  // one more than the page says whether there is more
  auto tasks = ctx.store.List(filter);
  if (!tasks.ok()) {
    ctx.server.Send(conn, ErrorResponse(tasks.status()));
    return;
  }
  const Blockers blockers = BlockersNow(ctx);
  bool more = tasks->size() > page;
  size_t bytes = 0;
  nlohmann::json out = nlohmann::json::array();
  for (size_t i = 0; i < std::min(page, tasks->size()); ++i) {
    const Task& t = (*tasks)[i];
    nlohmann::json j = TaskToJson(t);
    j.erase("attempt_log");  // a list reads no attempts: absent, never an empty log
    if (t.state == TaskState::kPending) j["waiting"] = WaitingJson(ctx, t, blockers);
    const size_t size = WireText(j).size() + 1;
    if (!out.empty() && bytes + size > kMaxListPageBytes) {  // the rest comes in the next page
      more = true;
      break;
    }
    bytes += size;
    out.push_back(std::move(j));
  }
  ctx.server.Send(conn, OkResponse({{"tasks", std::move(out)}, {"more", more}}));
}

}  // namespace tq
