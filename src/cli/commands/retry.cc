// tq retry: put failed or cancelled tasks back in the queue by hand.
#include <cstdio>
#include <set>

#include "cli/client.h"
#include "cli/commands/commands.h"
#include "cli/render.h"

namespace tq {

Command AddRetry(CLI::App& app, const GlobalOptions& g) {
  auto* sub = app.add_subcommand("retry", "Re-queue failed or cancelled tasks");
  struct Flags {
    std::vector<long long> ids;
    bool failed = false;
    std::string queue;
  };
  auto f = std::make_shared<Flags>();
  sub->add_option("ids", f->ids, "task ids");
  sub->add_flag("--failed", f->failed, "every failed task of yours (in --queue)");
  sub->add_option("--queue", f->queue, "with --failed: only this queue");
  return {sub, [f, &g]() {
            if (f->ids.empty() && !f->failed)
              return Fail(Status::Invalid("ids",
                                          "retry needs task ids (tq retry ID...) or "
                                          "--failed (tq retry --failed [--queue Q])"));
            if (!f->ids.empty() && f->failed)
              return Fail(Status::Invalid("ids", "give task ids or --failed, not both"));
            if (!f->queue.empty() && !f->failed)
              return Fail(Status::Invalid("--queue", "--queue goes with --failed"));
            RetryRequest req{{f->ids.begin(), f->ids.end()}, f->failed, std::nullopt};
            if (!f->queue.empty()) req.queue = f->queue;
            auto client = Client::Connect(g.socket);
            if (!client.ok()) return Fail(client.status());
            auto r = client->Call(req);
            if (!r.ok()) return Fail(r.status());
            const auto& ids = (*r)["ids"];
            if (g.json) {
              std::printf("%s\n", nlohmann::json{{"ids", ids}}.dump().c_str());
            } else {
              for (const auto& id : ids) std::printf("%lld\n", id.get<long long>());
            }
            // A named task that was not failed or cancelled is left as it is: the others were
            // re-queued, but the request was not done, so exit 1 naming each.
            std::set<long long> left(f->ids.begin(), f->ids.end());
            for (const auto& id : ids) left.erase(id.get<long long>());
            for (long long id : left) {
              auto task = client->Call(StatusRequest{id});
              const std::string state =
                  task.ok() ? (*task)["task"].value("state", "") : std::string("unknown");
              std::fprintf(stderr,
                           "tq: task %lld was not re-queued: its state is %s, not failed or "
                           "cancelled\n",
                           id, state.c_str());
            }
            return left.empty() ? 0 : 1;
          }};
}

}  // namespace tq
