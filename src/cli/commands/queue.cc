// tq queue: list queues, pause and resume them, change their concurrency at run time, delete
// one nothing uses.
#include <cstdio>
#include <limits>

#include "cli/arg_checks.h"
#include "cli/client.h"
#include "cli/commands/commands.h"
#include "cli/render.h"

namespace tq {

namespace {
void PrintQueues(const nlohmann::json& queues, bool json) {
  if (json) {
    for (const auto& q : queues) std::printf("%s\n", q.dump().c_str());
    return;
  }
  std::vector<std::vector<std::string>> rows = {{"QUEUE", "STATE", "CONCURRENCY", "RUNNING"}};
  for (const auto& q : queues)
    rows.push_back({q["name"].get<std::string>(), q["paused"].get<bool>() ? "paused" : "active",
                    q["concurrency"].is_null() ? "-" : q["concurrency"].dump(),
                    q["running"].dump()});
  PrintTable(rows);
}
}  // namespace

Command AddQueue(CLI::App& app, const GlobalOptions& g) {
  auto* sub = app.add_subcommand("queue", "List queues; pause, resume, resize or delete one");
  sub->require_subcommand(1);
  auto req = std::make_shared<QueueRequest>();
  auto concurrency = std::make_shared<int>(-1);
  sub->add_subcommand("list", "Every queue with its state, concurrency and running tasks")
      ->callback([req] { req->action = "list"; });
  for (const char* action : {"pause", "resume"}) {
    auto* s = sub->add_subcommand(action, std::string(action) + " a queue (persisted)");
    s->add_option("name", req->name, "queue name")->required();
    s->callback([req, action] { req->action = action; });
  }
  auto* del = sub->add_subcommand(
      "delete", "Forget a queue tqd.toml does not name and no pending or running task uses");
  del->add_option("name", req->name, "queue name")->required();
  del->callback([req] { req->action = "delete"; });
  auto* set = sub->add_subcommand("set", "Change a queue's concurrency (persisted)");
  set->add_option("name", req->name, "queue name")->required();
  set->add_option("--concurrency", *concurrency, "tasks at once; 0 returns to tqd.toml's")
      ->required()
      ->check(IntRange(0, std::numeric_limits<int>::max()));
  set->callback([req, concurrency] {
    req->action = "set";
    req->concurrency = *concurrency;
  });
  return {sub, [req, &g]() {
            auto client = Client::Connect(g.socket);
            if (!client.ok()) return Fail(client.status());
            auto r = client->Call(*req);
            if (!r.ok()) return Fail(r.status());
            if (req->action == "list" || g.json) PrintQueues((*r)["queues"], g.json);
            if (req->action == "list" && !g.json && r->value("more", false))
              std::fprintf(stderr, "(showing the first %zu queues)\n", (*r)["queues"].size());
            return 0;
          }};
}

}  // namespace tq
