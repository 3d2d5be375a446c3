// tq clean: remove finished tasks and their output now, by ids or by filters (SPEC 10).

#include <memory>

#include "core/model/saturating.h"
#include "daemon/handlers/handlers.h"
#include "daemon/host/log.h"

namespace tq {

void HandleClean(RequestContext& ctx, ConnId conn, const Owner& peer, const CleanRequest& r) {
  // Finished at or before `cutoff`: every finished task when no age is given.
  const WallMs cutoff = SaturatingAdd(ctx.clock.WallNow(), -r.older_than_ms);
  auto removed = std::make_shared<RemovedTasks>();
  WalkSelected(
      ctx, conn, peer, r.select, {TaskState::kSucceeded, TaskState::kExpired}, "clean",
      [&ctx, removed, cutoff](const std::vector<Task>& tasks) -> Status {
        std::vector<TaskId> ids;
        for (const Task& t : tasks) {
          // Tasks named by id are all finished, or none is removed.
          if (!IsTerminal(t.state))
            return Status::Invalid("ids", "task " + std::to_string(t.id) + " is " +
                                              StateName(t.state) +
                                              ": clean removes only finished tasks");
          if (t.finished <= cutoff) ids.push_back(t.id);
        }
        auto page = ctx.store.RemoveFinished(ids);
        if (!page.ok()) return page.status();
        ctx.dispatch.RemoveTaskFiles(page->ids);
        removed->ids.insert(removed->ids.end(), page->ids.begin(), page->ids.end());
        removed->output_bytes += page->output_bytes;
        return Status::Ok();
      },
      [&ctx, conn, removed, who = peer.name](const Status& done) {
        if (!removed->ids.empty())
          LogInfo("clean by {}: {} task(s) removed, {} bytes of output", who, removed->ids.size(),
                  removed->output_bytes);
        if (!done.ok()) return ctx.server.Send(conn, ErrorResponse(done));
        ctx.server.Send(conn, OkResponse({{"removed", removed->ids.size()},
                                          {"output_bytes", removed->output_bytes}}));
      });
}

}  // namespace tq
