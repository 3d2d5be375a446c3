#include <algorithm>
#include <set>

#include "core/model/limits.h"
#include "core/model/wall_time.h"
#include "daemon/handlers/handlers.h"

namespace tq {

namespace {

// The queues paused at run time.
std::set<std::string> PausedQueues(RequestContext& ctx) {
  std::set<std::string> paused;
  if (auto states = ctx.store.QueueStates(); states.ok())
    for (const QueueState& q : *states)
      if (q.paused) paused.insert(q.name);
  return paused;
}

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

nlohmann::json WaitingJson(RequestContext& ctx, const Task& task,
                           const std::set<std::string>& paused) {
  nlohmann::json after = nlohmann::json::array();
  if (!task.spec.after.empty()) {
    auto deps = ctx.store.UnfinishedDeps(task.id);
    if (deps.ok()) after = *deps;
  }
  const bool later = task.spec.not_before > ctx.clock.WallNow();
  return {
      {"until", later ? nlohmann::json(FormatRfc3339Utc(task.spec.not_before)) : nlohmann::json()},
      {"after", std::move(after)},
      {"queue_paused", paused.count(task.spec.queue) > 0},
      {"held", task.on_hold}};
}

nlohmann::json TaskWithWaiting(RequestContext& ctx, const Task& task) {
  nlohmann::json j = TaskToJson(task);
  if (task.state == TaskState::kPending) j["waiting"] = WaitingJson(ctx, task, PausedQueues(ctx));
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
  const std::set<std::string> paused = PausedQueues(ctx);
  bool more = tasks->size() > page;
  size_t bytes = 0;
  nlohmann::json out = nlohmann::json::array();
  for (size_t i = 0; i < std::min(page, tasks->size()); ++i) {
    const Task& t = (*tasks)[i];
    nlohmann::json j = TaskToJson(t);
    j.erase("attempt_log");  // a list reads no attempts: absent, never an empty log
    if (t.state == TaskState::kPending) j["waiting"] = WaitingJson(ctx, t, paused);
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
