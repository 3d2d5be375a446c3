#include <algorithm>
#include <unordered_set>

#include "daemon/handlers/handlers.h"

namespace tq {

namespace {

// Whether `ids` named a group (SPEC 12): its shards, found among `tasks`, stand in its place.
bool NamesGroup(const std::vector<TaskId>& ids, const std::vector<Task>& tasks) {
  const std::unordered_set<TaskId> named(ids.begin(), ids.end());
  return std::any_of(tasks.begin(), tasks.end(), [&](const Task& t) {
    return t.spec.shard && named.count(t.spec.shard->group) > 0;
  });
}

}  // namespace

void HandleWait(RequestContext& ctx, ConnId conn, const Owner& peer, const WaitRequest& r) {
  SelectTasks(ctx, conn, peer, r.select, AnyState(), "wait for",
              [&ctx, conn, select = r.select](Result<std::vector<Task>> tasks) {
                if (!ctx.server.IsOpen(conn)) return;  // gone while its filters were read
                if (!tasks.ok()) return ctx.server.Send(conn, ErrorResponse(tasks.status()));
                // Told first, so the client knows what it waits for, and for which ids to ask again
                // after a reconnect: what the filters matched, or the shards a group's id stands
                // for.
                if (select.ByFilter() || NamesGroup(select.ids, *tasks))
                  ctx.server.Send(conn, OkResponse({{"selected", IdsOf(*tasks)}}));
                ctx.server.SetBusy(conn, true);
                ctx.waiters.Add(conn, Waiters::Kind::kStream, *tasks);
              });
}

}  // namespace tq
