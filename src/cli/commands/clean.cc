// tq clean: remove finished tasks and their output now (pueue clean, tsp -C).
#include <cstdio>

#include "cli/client.h"
#include "cli/commands/commands.h"
#include "cli/render.h"
#include "cli/selector_flags.h"
#include "core/model/duration.h"

namespace tq {

Command AddClean(CLI::App& app, const GlobalOptions& g) {
  auto* sub = app.add_subcommand("clean", "Remove finished tasks and their output now");
  struct Flags {
    SelectorFlags select;
    std::string older_than;
  };
  auto f = std::make_shared<Flags>();
  f->select.AddTo(sub, "finished tasks to remove (default: by the filters)",
                  "succeeded (the default), failed, cancelled, expired or all-finished");
  sub->add_option("--older-than", f->older_than,
                  "only tasks that finished at least this long ago (2d, 12h)");
  return {sub, [f, &g]() {
            CleanRequest req;
            auto select = f->select.Selector(CleanableStates());
            if (!select.ok()) return Fail(select.status());
            req.select = std::move(*select);
            if (!f->older_than.empty()) {
              auto age = ParseDuration(f->older_than, "--older-than");
              if (!age.ok()) return Fail(age.status());
              req.older_than_ms = *age;
            }
            auto client = Client::Connect(g.socket);
            if (!client.ok()) return Fail(client.status());
            auto r = client->Call(req);
            if (!r.ok()) return Fail(r.status());
            const int64_t removed = r->value("removed", int64_t{0});
            const int64_t bytes = r->value("output_bytes", int64_t{0});
            if (g.json) {
              std::printf(
                  "%s\n",
                  nlohmann::json{{"removed", removed}, {"output_bytes", bytes}}.dump().c_str());
            } else {
              std::printf("removed %lld task%s, %s of output\n", static_cast<long long>(removed),
                          removed == 1 ? "" : "s", HumanBytes(bytes).c_str());
            }
            return 0;
          }};
}

}  // namespace tq
