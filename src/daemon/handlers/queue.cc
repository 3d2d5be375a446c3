#include <algorithm>
#include <cstddef>
#include <map>
#include <set>

#include "core/model/limits.h"
#include "core/model/quote.h"
#include "daemon/handlers/handlers.h"
#include "daemon/host/log.h"
#include "daemon/host/store_metrics.h"

namespace tq {

namespace {

// True when the store holds `name`: a task was submitted to it, or tq queue changed it.
bool StoreHasQueue(RequestContext& ctx, const std::string& name) {
  auto state = ctx.store.QueueStateOf(name);
  return state.ok() && state->has_value();
}

// kLimit when `peer` may not make one more queue of their own (max_queues); admins may.
Status CheckQueueCap(RequestContext& ctx, const Owner& peer, const std::string& name) {
  const std::string_view user = QueueUser(name);
  const UserLimits* limits = ctx.limits.Of(peer.uid);
  if (user.empty() || limits == nullptr || ctx.access.For(peer).admin) return Status::Ok();
  auto held = ctx.store.QueuesNamedFrom(std::string(user) + "/");
  if (!held.ok()) return held.status();
  if (*held < limits->max_queues) return Status::Ok();
  return Status(ErrorCode::kLimit, "max_queues",
                "max_queues: user " + Quote(std::string(user)) + " has " + std::to_string(*held) +
                    " queues of their own, and max_queues allows " +
                    std::to_string(limits->max_queues) + " (tq queue delete removes one)");
}

// Makes a new queue with the settings of an add: one tqd.toml names, the default queue and one
// the store has are there already.
Status Add(RequestContext& ctx, const Owner& peer, const QueueRequest& r) {
  if (r.name == TaskSpec().queue || ctx.config->queues.count(r.name) > 0)
    return Status::Invalid(
        "name", "queue " + Quote(r.name) + " exists already (change it with tq queue set)");
  if (Status st = CheckQueueCap(ctx, peer, r.name); !st.ok()) return st;
  QueueState queue;
  queue.name = r.name;
  queue.concurrency = r.concurrency;
  queue.priority_mix = r.priority_mix;
  queue.added = true;
  Status st = ctx.store.AddQueue(queue);
  if (!st.ok() && st.field() == "name")
    return Status::Invalid("name", st.message() + " (change it with tq queue set)");
  return st;
}

// Applies an add, pause, resume, set or delete. The queue tasks go to without --queue always
// exists, as if tqd.toml named it.
Status Change(RequestContext& ctx, const Owner& peer, const QueueRequest& r) {
  if (r.action == "add") return Add(ctx, peer, r);
  const bool is_default = r.name == TaskSpec().queue;
  const bool configured = ctx.config->queues.count(r.name) > 0;
  if (!is_default && !configured && !StoreHasQueue(ctx, r.name))
    return Status(ErrorCode::kNotFound, "name",
                  "queue " + Quote(r.name) +
                      " does not exist: a queue exists once tqd.toml names it, tq queue add "
                      "makes it or a task is "
                      "submitted to it");
  if (r.action == "delete") {
    if (is_default)
      return Status::Invalid("name", "queue " + Quote(r.name) +
                                         " takes every task submitted without --queue: it "
                                         "cannot be deleted");
    if (configured)
      return Status::Invalid(
          "name", "queue " + Quote(r.name) + " is named in tqd.toml: remove it there to delete it");
    return ctx.store.DeleteQueue(r.name);
  }
  if (r.action == "pause" || r.action == "resume")
    return ctx.store.SetQueuePaused(r.name, r.action == "pause");
  return ctx.store.WriteTogether([&]() -> Status {
    if (r.concurrency) {
      Status st = ctx.store.SetQueueConcurrency(
          r.name, *r.concurrency == 0 ? std::nullopt : std::optional<int>(*r.concurrency));
      if (!st.ok()) return st;
    }
    return r.priority_mix ? ctx.store.SetQueuePriorityMix(r.name, r.priority_mix) : Status::Ok();
  });
}

// Queue `q` as tq queue answers it, with `running` attempts in it.
nlohmann::json QueueJson(RequestContext& ctx, const QueueState& q, int running) {
  const int cap = QueueCap(q, *ctx.config);
  return {{"name", q.name},
          {"paused", q.paused},
          {"concurrency", cap == 0 ? nlohmann::json() : nlohmann::json(cap)},
          {"priority_mix", PriorityMixName(QueueMix(q, *ctx.config))},
          {"running", running},
          {"counted_apart", CountedApart(*ctx.config, q.name)}};
}

// Every queue `peer` may see with its effective settings, for `tq queue list`: an admin sees
// every queue that exists, a user those of tqd.toml open to them and the others where they have
// a pending or running task.
nlohmann::json QueuesJson(RequestContext& ctx, const Owner& peer) {
  // The queues that exist: the default, those of tqd.toml, those given a setting by `tq queue`,
  // and any other while a task of it is pending or running.
  std::map<std::string, QueueState> all;
  all[TaskSpec().queue].name = TaskSpec().queue;
  for (const auto& [name, cfg] : ctx.config->queues) all[name].name = name;
  std::set<std::string> active;
  if (auto counts = ctx.store.TaskCounts(); counts.ok())
    for (const TaskCount& c : *counts)
      if (c.state == TaskState::kPending || c.state == TaskState::kRunning) active.insert(c.queue);
  if (auto states = ctx.store.QueueStates(); states.ok())
    for (const QueueState& q : *states)
      if (all.count(q.name) || q.paused || q.concurrency || q.priority_mix || q.added ||
          active.count(q.name))
        all[q.name] = q;
  // A user sees the queues of tqd.toml open to them, and the others where they have tasks.
  if (!ctx.access.For(peer).admin) {
    std::set<std::string> own;
    if (auto mine = ctx.store.ActiveQueuesOf(peer.uid); mine.ok())
      own.insert(mine->begin(), mine->end());
    std::erase_if(all, [&](const auto& entry) {
      const std::string& name = entry.first;
      if (QueueUser(name) == peer.name) return false;  // their own
      const bool listed = CountedApart(*ctx.config, name);
      return !own.count(name) && (!listed || !ctx.access.CheckQueue(peer, name).ok());
    });
  }
  auto running = ctx.store.RunningCounts();
  if (!running.ok()) LogError("{}", running.status().message());
  nlohmann::json out = nlohmann::json::array();
  for (const auto& [name, q] : all)
    out.push_back(QueueJson(ctx, q, running.ok() ? RunningCount(*running, name) : 0));
  return out;
}

// The queue a change named, as it is now (a list of it alone; none once deleted): the answer
// to a change names only what changed.
nlohmann::json ChangedJson(RequestContext& ctx, const QueueRequest& r) {
  nlohmann::json out = nlohmann::json::array();
  if (r.action == "delete") return out;
  QueueState q;
  q.name = r.name;
  if (auto stored = ctx.store.QueueStateOf(r.name); stored.ok() && stored->has_value())
    q = **stored;
  auto running = ctx.store.RunningCounts();
  out.push_back(QueueJson(ctx, q, running.ok() ? RunningCount(*running, r.name) : 0));
  return out;
}

}  // namespace

Caller QueueCaller(const QueueRequest& r) {
  // A user's own queue (USER/NAME) is checked against the caller in HandleQueue.
  return r.action == "list" || !QueueUser(r.name).empty() ? Caller::kAnyUser : Caller::kAdmin;
}

void HandleQueue(RequestContext& ctx, ConnId conn, const Owner& peer, const QueueRequest& r) {
  if (r.action != "list") {
    const std::string_view owner = QueueUser(r.name);
    if (!owner.empty() && owner != peer.name && !ctx.access.For(peer).admin) {
      ctx.server.Send(conn,
                      ErrorResponse(Status(ErrorCode::kPermission, "name",
                                           "only " + std::string(owner) + " and the admins may " +
                                               r.action + " queue " + Quote(r.name))));
      return;
    }
    if (Status st = Change(ctx, peer, r); !st.ok()) {
      ctx.server.Send(conn, ErrorResponse(st));
      return;
    }
    ctx.server.Send(conn, OkResponse({{"queues", ChangedJson(ctx, r)}, {"more", false}}));
    ctx.dispatch.Schedule();
    return;
  }
  nlohmann::json queues = QueuesJson(ctx, peer);
  const bool more = queues.size() > kMaxQueueList;
  if (more) queues.erase(queues.begin() + static_cast<std::ptrdiff_t>(kMaxQueueList), queues.end());
  ctx.server.Send(conn, OkResponse({{"queues", std::move(queues)}, {"more", more}}));
}

}  // namespace tq
