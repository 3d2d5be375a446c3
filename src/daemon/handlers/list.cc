#include <algorithm>
#include <set>

#include "core/model/command_match.h"
#include "core/model/limits.h"
#include "core/model/wall_time.h"
#include "daemon/handlers/handlers.h"
#include "daemon/host/host_state.h"

namespace tq {

namespace {

// The store's filter for a list request from `peer`: the wire's filters, and whose tasks (a
// user named by --user: only those who see everyone may name another).
Result<ListFilter> FilterFor(RequestContext& ctx, const Owner& peer, const ListRequest& r) {
  auto owner_uid = OwnerFilterFor(ctx, peer, r.user, "list", true);
  if (!owner_uid.ok()) return owner_uid.status();
  ListFilter filter;
  filter.owner_uid = *owner_uid;
  filter.states = r.states;
  filter.queue = r.queue;
  filter.label = r.label;
  filter.before_id = r.before_id;
  filter.limit = r.limit;
  return filter;
}

// The tasks read for one list page: up to `page` matches, whether older ones may match, and
// where the next page starts.
struct FoundTasks {
  std::vector<Task> tasks;
  bool more = false;
  TaskId next_before_id = 0;
};

// Tasks read from the store at once while looking for a command's text.
constexpr int kListScanBatch = 500;

// Up to `page` tasks matching `filter` and, when set, `command` (CommandContains): with a
// command the store is read in batches until page + 1 tasks match or kMaxListScan were read.
Result<FoundTasks> FindTasks(Store& store, ListFilter filter, size_t page,
                             const std::optional<std::string>& command) {
  FoundTasks found;
  int read = 0;
  for (;;) {
    filter.limit =
        command ? std::min(kListScanBatch, kMaxListScan - read) : static_cast<int>(page) + 1;
    auto batch = store.List(filter);
    if (!batch.ok()) return batch.status();
    read += static_cast<int>(batch->size());
    for (Task& t : *batch) {
      if (command && !CommandContains(t.spec, *command)) continue;
      if (found.tasks.size() == page) {  // one more than the page: older tasks match
        found.more = true;
        found.next_before_id = found.tasks.back().id;
        return found;
      }
      found.tasks.push_back(std::move(t));
    }
    if (!command || batch->size() < static_cast<size_t>(filter.limit)) return found;
    filter.before_id = batch->back().id;
    if (read >= kMaxListScan) {  // enough for one request: the next goes on from here
      found.more = true;
      found.next_before_id = *filter.before_id;
      return found;
    }
  }
}

}  // namespace

Blockers BlockersNow(RequestContext& ctx) {
  Blockers b;
  if (auto states = ctx.store.QueueStates(); states.ok())
    for (const QueueState& q : *states)
      if (q.paused) b.paused.insert(q.name);
  if (auto running = ctx.store.RunningByOwner(); running.ok()) b.running_by_owner = *running;
  if (ctx.config->Shared())
    if (auto hosts = ctx.store.Hosts(ctx.clock.WallNow()); hosts.ok()) {
      for (const HostRecord& h : *hosts) {
        const std::string state =
            HostStateName(h, ctx.host, true, HeartbeatAgeMs(h), ctx.config->host_lease_ms);
        if (state != "live") b.hosts_away[h.name] = state;
      }
    }
  // Without resources a task's units are missing whatever is held: nothing to read.
  if (ctx.config->unit_pools.empty()) return b;
  if (auto holders = ctx.store.HeldUnits(); holders.ok()) b.held = UnitsHeldBy(*holders);
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
  // Units tqd.toml no longer has enough of (a reload took some away): no wait ends this one.
  const Status possible = CheckUnitRequest(task.spec.use, ctx.config->unit_pools);
  // Its user's own max_running, when that many of their tasks run (the chooser passes it over).
  const UserLimits* limits = ctx.limits.Of(task.owner.uid);
  const int64_t cap = limits != nullptr ? limits->max_running : 0;
  const auto running = blockers.running_by_owner.find(task.owner.uid);
  const bool user_full =
      cap > 0 && running != blockers.running_by_owner.end() && running->second >= cap;
  const std::optional<std::string> not_started = ctx.dispatch.NotStartedWhy(task.id);
  const auto away = blockers.hosts_away.find(task.spec.run_on);
  nlohmann::json host;
  if (!task.spec.run_on.empty() && away != blockers.hosts_away.end())
    host = {{"name", task.spec.run_on}, {"state", away->second}};
  return {
      {"host", std::move(host)},
      {"cannot_start", possible.ok() ? nlohmann::json() : nlohmann::json(possible.message())},
      {"not_started", not_started ? nlohmann::json(*not_started) : nlohmann::json()},
      {"until", later ? nlohmann::json(FormatRfc3339Utc(task.spec.not_before)) : nlohmann::json()},
      {"after", std::move(after)},
      {"queue_paused", blockers.paused.count(task.spec.queue) > 0},
      {"held", task.on_hold},
      {"units", units.empty() ? nlohmann::json() : nlohmann::json(units)},
      {"user_max_running", user_full ? nlohmann::json(cap) : nlohmann::json()}};
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
  const size_t page = static_cast<size_t>(std::clamp(wanted->limit, 1, kMaxListPage));
  auto found = FindTasks(ctx.store, *wanted, page, r.command);
  if (!found.ok()) {
    ctx.server.Send(conn, ErrorResponse(found.status()));
    return;
  }
  const Blockers blockers = BlockersNow(ctx);
  size_t bytes = 0;
  nlohmann::json out = nlohmann::json::array();
  for (const Task& t : found->tasks) {
    nlohmann::json j = TaskToJson(t);
    // A list reads only the last attempt: no log, but that attempt and its host.
    nlohmann::json& log = j["attempt_log"];
    j["last_attempt"] = log.empty() ? nlohmann::json() : std::move(log.back());
    j.erase("attempt_log");
    if (!t.attempts.empty() && !t.attempts.back().host.empty()) j["host"] = t.attempts.back().host;
    if (t.state == TaskState::kPending) j["waiting"] = WaitingJson(ctx, t, blockers);
    const size_t size = WireText(j).size() + 1;
    if (!out.empty() && bytes + size > kMaxListPageBytes) {  // the rest comes in the next page
      found->more = true;
      found->next_before_id = out.back()["id"].get<TaskId>();
      break;
    }
    bytes += size;
    out.push_back(std::move(j));
  }
  nlohmann::json answer = {
      {"tasks", std::move(out)}, {"more", found->more}, {"shared", ctx.config->Shared()}};
  if (found->more) answer["next_before_id"] = found->next_before_id;
  ctx.server.Send(conn, OkResponse(std::move(answer)));
}

}  // namespace tq
