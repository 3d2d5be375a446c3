// tq queue: list queues, add one, pause and resume them, change their concurrency and priority
// mix at run time, delete one nothing uses.
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
  std::vector<std::vector<std::string>> rows = {
      {"QUEUE", "STATE", "CONCURRENCY", "MIX", "RUNNING"}};
  for (const auto& q : queues)
    rows.push_back({q["name"].get<std::string>(), q["paused"].get<bool>() ? "paused" : "active",
                    q["concurrency"].is_null() ? "-" : q["concurrency"].dump(),
                    q.value("priority_mix", "80/20"), q["running"].dump()});
  PrintTable(rows);
}

// The settings of `tq queue add` and `tq queue set`, read into `req` when the command runs.
struct QueueSettingFlags {
  int concurrency = -1;  // -1: not given
  std::string priority_mix;

  // Adds --concurrency (from `min`) and --priority-mix to `cmd`.
  void AddTo(CLI::App* cmd, int min, const std::string& concurrency_help) {
    cmd->add_option("--concurrency", concurrency, concurrency_help)
        ->check(DecimalCheck({min, std::numeric_limits<int>::max(), "a concurrency"}));
    cmd->add_option("--priority-mix", priority_mix,
                    "80/20 (highest priority first, some oldest first) or strict")
        ->check(CLI::IsMember({"80/20", "strict"}));
  }
  // Copies the settings given into `req`.
  void Into(QueueRequest& req) const {
    if (concurrency >= 0) req.concurrency = concurrency;
    if (!priority_mix.empty()) req.priority_mix = PriorityMixNamed(priority_mix);
  }
};
}  // namespace

Command AddQueue(CLI::App& app, const GlobalOptions& g) {
  auto* sub = app.add_subcommand("queue", "List queues; add, pause, resume, change or delete one");
  sub->require_subcommand(1);
  auto req = std::make_shared<QueueRequest>();
  auto settings = std::make_shared<QueueSettingFlags>();
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
  auto* add = sub->add_subcommand("add", "Make a queue with its settings (persisted)");
  add->add_option("name", req->name, "queue name")->required();
  settings->AddTo(add, 1, "tasks of it at once (default: no cap of its own)");
  add->callback([req, settings] {
    req->action = "add";
    settings->Into(*req);
  });
  auto* set =
      sub->add_subcommand("set", "Change a queue's concurrency or priority mix (persisted)");
  set->add_option("name", req->name, "queue name")->required();
  settings->AddTo(set, 0, "tasks at once; 0 returns to tqd.toml's");
  set->callback([req, settings] {
    req->action = "set";
    settings->Into(*req);
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
