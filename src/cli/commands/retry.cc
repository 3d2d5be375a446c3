// tq retry: put failed or cancelled tasks back in the queue by hand.
#include <cstdio>

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
            if (f->ids.empty() == !f->failed)
              return Fail(Status::Invalid("ids", "give task ids, or --failed, not both"));
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
            // Naming tasks that were not failed or cancelled is not an error, but say so.
            if (!f->failed && ids.size() < f->ids.size())
              std::fprintf(stderr, "tq: %zu of %zu tasks were not failed or cancelled\n",
                           f->ids.size() - ids.size(), f->ids.size());
            return 0;
          }};
}

}  // namespace tq
