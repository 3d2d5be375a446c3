// tq cancel: pending tasks end at once; running ones get TERM, then KILL after the grace.
#include <cstdio>

#include "cli/client.h"
#include "cli/commands/commands.h"
#include "cli/render.h"

namespace tq {

Command AddCancel(CLI::App& app, const GlobalOptions& g) {
  auto* sub = app.add_subcommand("cancel", "Cancel tasks; returns once they have ended");
  auto ids = std::make_shared<std::vector<long long>>();
  sub->add_option("ids", *ids, "task ids")->required();
  return {sub, [ids, &g]() {
            auto client = Client::Connect(g.socket);
            if (!client.ok()) return Fail(client.status());
            auto r = client->Call(CancelRequest{{ids->begin(), ids->end()}});
            if (!r.ok()) return Fail(r.status());
            for (const auto& t : (*r)["tasks"]) {
              if (g.json) {
                std::printf("%s\n", t.dump().c_str());
              } else {
                std::printf("%lld %s\n", t["id"].get<long long>(), DescribeEnd(t).c_str());
              }
            }
            return 0;
          }};
}

}  // namespace tq
