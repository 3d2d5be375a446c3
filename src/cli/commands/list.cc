// tq list: tasks, newest first, with filters; fetched a page at a time and printed as it comes.
#include <unistd.h>

#include <cstdio>
#include <limits>

#include "cli/arg_checks.h"
#include "cli/client.h"
#include "cli/commands/commands.h"
#include "cli/render.h"
#include "cli/state_colour.h"

namespace tq {

namespace {
// The host of a listed task: where its last attempt ran, else where it must run ("" for any).
std::string HostOf(const nlohmann::json& t) {
  for (const char* key : {"host", "run_on"})
    if (auto it = t.find(key); it != t.end() && it->is_string()) return it->get<std::string>();
  return "";
}

// The table rows of one page of tasks; states in colour when `colour`, with the owner's name
// when `owners` and the host when `hosts`.
std::vector<std::vector<std::string>> Rows(const nlohmann::json& tasks, bool colour, bool owners,
                                           bool hosts) {
  std::vector<std::vector<std::string>> rows;
  for (const auto& t : tasks) {
    std::vector<std::string> row = {t["id"].dump(), PaintState(t.value("state", ""), colour),
                                    t["priority"].dump(), t.value("queue", "")};
    if (owners) row.push_back(t["owner"].value("name", ""));
    if (hosts) row.push_back(HostOf(t));
    for (std::string cell : {LocalTime(t["created"]), WaitingNote(t), CommandLine(t)})
      row.push_back(std::move(cell));
    rows.push_back(std::move(row));
  }
  return rows;
}

// True when a task of `tasks` is not the caller's: who sees other users' tasks (root, an admin)
// gets an OWNER column.
bool OthersAmong(const nlohmann::json& tasks) {
  const uid_t self = getuid();
  for (const auto& t : tasks)
    if (t["owner"].value("uid", self) != self) return true;
  return false;
}
}  // namespace

Command AddList(CLI::App& app, const GlobalOptions& g) {
  auto* sub = app.add_subcommand("list", "List tasks, newest first");
  struct Flags {
    std::string state, queue, label, user, command;
    int limit = -1;  // -1: not given (the newest 100 in a table, every match with --json)
  };
  auto f = std::make_shared<Flags>();
  sub->add_option("--state", f->state, "pending running succeeded failed cancelled expired")
      ->check(CLI::IsMember({"pending", "running", "succeeded", "failed", "cancelled", "expired"}));
  sub->add_option("-q,--queue", f->queue, "only this queue");
  sub->add_option("--label", f->label, "only tasks with this label");
  sub->add_option("-u,--user", f->user, "only this user's tasks (admins: any user)");
  sub->add_option("--command", f->command,
                  "only tasks whose command holds this text (ASCII case ignored)");
  sub->add_option("--limit", f->limit, "at most this many; 0: all (default: 100, all with --json)")
      ->check(DecimalCheck({0, std::numeric_limits<int>::max(), "a limit"}));
  return {sub, [f, &g]() {
            ListRequest req;
            if (!f->state.empty()) req.state = StateFromName(f->state);
            if (!f->queue.empty()) req.queue = f->queue;
            if (!f->label.empty()) req.label = f->label;
            if (!f->user.empty()) req.user = f->user;
            if (!f->command.empty()) req.command = f->command;
            auto client = Client::Connect(g.socket);
            if (!client.ok()) return Fail(client.status());
            TablePrinter table(TableWidth());
            const bool colour = StdoutColour(g.json);
            // What a script reads (--json) gets every match; a table the newest 100.
            const int limit = f->limit == 0 || (f->limit < 0 && g.json)
                                  ? std::numeric_limits<int>::max()
                                  : (f->limit < 0 ? 100 : f->limit);
            int shown = 0;
            bool more = true, owners = false, hosts = false;
            while (more && shown < limit) {  // the daemon answers a page at a time
              req.limit = limit - shown;
              auto r = client->Call(req);
              if (!r.ok()) return Fail(r.status());
              const nlohmann::json& tasks = (*r)["tasks"];
              // The next page starts where tqd says (an older tqd: after the last task).
              const TaskId next = r->value(
                  "next_before_id", tasks.empty() ? TaskId{0} : tasks.back()["id"].get<TaskId>());
              more = r->value("more", false) && next > 0;
              if (more) req.before_id = next;
              if (g.json) {
                for (const auto& t : tasks) std::printf("%s\n", t.dump().c_str());
              } else if (!tasks.empty() || (shown == 0 && !more)) {
                // The header goes with the first page that has tasks (or the last), aligned
                // with it; that page decides whether there is an OWNER column. A store shared
                // by several hosts adds a HOST column.
                if (shown == 0) {
                  owners = OthersAmong(tasks);
                  hosts = r->value("shared", false);
                }
                auto rows = Rows(tasks, colour, owners, hosts);
                if (shown == 0) {
                  std::vector<std::string> header = {"ID", "STATE", "PRI", "QUEUE"};
                  if (owners) header.push_back("OWNER");
                  if (hosts) header.push_back("HOST");
                  for (const char* h : {"CREATED", "WHEN", "COMMAND"}) header.push_back(h);
                  rows.insert(rows.begin(), header);
                }
                table.Print(rows);
              }
              std::fflush(stdout);
              shown += static_cast<int>(tasks.size());
            }
            if (more && !g.json)
              std::fprintf(stderr, "(showing the newest %d; --limit N for more)\n", shown);
            return 0;
          }};
}

}  // namespace tq
