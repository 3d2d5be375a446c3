// tq hold and tq release: keep pending tasks from starting until released (qhold and qrls,
// pueue stash and enqueue).
#include <cstdio>
#include <set>

#include "cli/client.h"
#include "cli/commands/commands.h"
#include "cli/render.h"
#include "cli/selector_flags.h"

namespace tq {

Command AddHold(CLI::App& app, const GlobalOptions& g, bool release) {
  const char* name = release ? "release" : "hold";
  auto* sub = app.add_subcommand(name, release ? "Let held tasks start again"
                                               : "Keep pending tasks from starting until released");
  auto f = std::make_shared<SelectorFlags>();
  f->AddTo(sub, release ? "held tasks" : "pending tasks", "pending (the only one)");
  return {sub, [f, &g, release, name]() {
            auto select = f->SomeSelector({TaskState::kPending}, name);
            if (!select.ok()) return Fail(select.status());
            auto client = Client::Connect(g.socket);
            if (!client.ok()) return Fail(client.status());
            auto r = client->Call(HoldRequest{*select, release});
            if (!r.ok()) return Fail(r.status());
            const auto changed = (*r)["ids"].get<std::vector<TaskId>>();
            if (g.json) {
              std::printf("%s\n", nlohmann::json{{"ids", changed}}.dump().c_str());
              return 0;
            }
            for (TaskId id : changed)
              std::printf("%lld %s\n", static_cast<long long>(id), release ? "released" : "held");
            // Named tasks it left alone were so already.
            const std::set<TaskId> done(changed.begin(), changed.end());
            for (TaskId id : select->ids)
              if (!done.count(id))
                std::printf("%lld was %s\n", static_cast<long long>(id),
                            release ? "not held" : "already held");
            if (select->ByFilter() && changed.empty()) std::fputs("tq: no task matches\n", stderr);
            return 0;
          }};
}

}  // namespace tq
