// tq list: tasks, newest first, with filters.
#include <cstdio>
#include <limits>

#include "cli/arg_checks.h"
#include "cli/client.h"
#include "cli/commands/commands.h"
#include "cli/render.h"

namespace tq {

Command AddList(CLI::App& app, const GlobalOptions& g) {
  auto* sub = app.add_subcommand("list", "List tasks, newest first");
  struct Flags {
    std::string state, queue, label;
    int limit = 100;
  };
  auto f = std::make_shared<Flags>();
  sub->add_option("--state", f->state, "pending running succeeded failed cancelled expired")
      ->check(CLI::IsMember({"pending", "running", "succeeded", "failed", "cancelled", "expired"}));
  sub->add_option("--queue", f->queue, "only this queue");
  sub->add_option("--label", f->label, "only tasks with this label");
  sub->add_option("--limit", f->limit, "at most this many (default 100)")
      ->check(IntRange(1, std::numeric_limits<int>::max()));
  return {sub, [f, &g]() {
            ListRequest req;
            if (!f->state.empty()) req.filter.state = StateFromName(f->state);
            if (!f->queue.empty()) req.filter.queue = f->queue;
            if (!f->label.empty()) req.filter.label = f->label;
            req.filter.limit = f->limit;
            auto client = Client::Connect(g.socket);
            if (!client.ok()) return Fail(client.status());
            auto r = client->Call(req);
            if (!r.ok()) return Fail(r.status());
            if (g.json) {
              for (const auto& t : (*r)["tasks"]) std::printf("%s\n", t.dump().c_str());
              return 0;
            }
            std::vector<std::vector<std::string>> rows = {
                {"ID", "STATE", "PRI", "QUEUE", "CREATED", "COMMAND"}};
            for (const auto& t : (*r)["tasks"])
              rows.push_back({t["id"].dump(), t.value("state", ""), t["priority"].dump(),
                              t.value("queue", ""), LocalTime(t["created"]), CommandLine(t)});
            PrintTable(rows);
            return 0;
          }};
}

}  // namespace tq
