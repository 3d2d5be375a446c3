// tq list: tasks, newest first, with filters; fetched a page at a time and printed as it comes.
#include <cstdio>
#include <limits>

#include "cli/arg_checks.h"
#include "cli/client.h"
#include "cli/commands/commands.h"
#include "cli/render.h"
#include "cli/state_colour.h"

namespace tq {

namespace {
// The table rows of one page of tasks; states in colour when `colour`.
std::vector<std::vector<std::string>> Rows(const nlohmann::json& tasks, bool colour) {
  std::vector<std::vector<std::string>> rows;
  for (const auto& t : tasks)
    rows.push_back({t["id"].dump(), PaintState(t.value("state", ""), colour), t["priority"].dump(),
                    t.value("queue", ""), LocalTime(t["created"]), WaitingNote(t), CommandLine(t)});
  return rows;
}
}  // namespace

Command AddList(CLI::App& app, const GlobalOptions& g) {
  auto* sub = app.add_subcommand("list", "List tasks, newest first");
  struct Flags {
    std::string state, queue, label;
    int limit = -1;  // -1: not given (the newest 100 in a table, every match with --json)
  };
  auto f = std::make_shared<Flags>();
  sub->add_option("--state", f->state, "pending running succeeded failed cancelled expired")
      ->check(CLI::IsMember({"pending", "running", "succeeded", "failed", "cancelled", "expired"}));
  sub->add_option("-q,--queue", f->queue, "only this queue");
  sub->add_option("--label", f->label, "only tasks with this label");
  sub->add_option("--limit", f->limit, "at most this many; 0: all (default: 100, all with --json)")
      ->check(IntRange(0, std::numeric_limits<int>::max()));
  return {sub, [f, &g]() {
            ListRequest req;
            if (!f->state.empty()) req.state = StateFromName(f->state);
            if (!f->queue.empty()) req.queue = f->queue;
            if (!f->label.empty()) req.label = f->label;
            auto client = Client::Connect(g.socket);
            if (!client.ok()) return Fail(client.status());
            TablePrinter table(TableWidth());
            const bool colour = StdoutColour(g.json);
            // What a script reads gets every match; a table the newest 100.
            const bool whole = g.json;
            const int limit = f->limit == 0 || (f->limit < 0 && whole)
                                  ? std::numeric_limits<int>::max()
                                  : (f->limit < 0 ? 100 : f->limit);
            int shown = 0;
            bool more = true;
            while (more && shown < limit) {  // the daemon answers a page at a time
              req.limit = limit - shown;
              auto r = client->Call(req);
              if (!r.ok()) return Fail(r.status());
              const nlohmann::json& tasks = (*r)["tasks"];
              if (g.json) {
                for (const auto& t : tasks) std::printf("%s\n", t.dump().c_str());
              } else {
                auto rows = Rows(tasks, colour);
                if (shown == 0)  // the header goes with the first page, aligned with it
                  rows.insert(rows.begin(),
                              {"ID", "STATE", "PRI", "QUEUE", "CREATED", "WHEN", "COMMAND"});
                table.Print(rows);
              }
              std::fflush(stdout);
              shown += static_cast<int>(tasks.size());
              more = r->value("more", false) && !tasks.empty();
              if (more) req.before_id = tasks.back()["id"].get<TaskId>();
            }
            if (more && !whole)
              std::fprintf(stderr, "(showing the newest %d; --limit N for more)\n", shown);
            return 0;
          }};
}

}  // namespace tq
