// tq list: tasks, newest first, with filters; fetched a page at a time and printed as it comes.
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <limits>

#include "cli/arg_checks.h"
#include "cli/client.h"
#include "cli/commands/commands.h"
#include "cli/render.h"
#include "cli/state_colour.h"
#include "core/model/clock.h"
#include "core/model/quote.h"
#include "core/proto/task_selector.h"

namespace tq {

namespace {
// The host of a listed task: where its last attempt ran, else where it must run ("" for any).
std::string HostOf(const nlohmann::json& t) {
  for (const char* key : {"host", "run_on"})
    if (auto it = t.find(key); it != t.end() && it->is_string()) return it->get<std::string>();
  return "";
}

// The columns of the table beyond those every listing has.
struct Columns {
  bool colour = false;  ///< states in colour
  bool owners = false;  ///< OWNER: the owner's name
  bool hosts = false;   ///< HOST: where the last attempt ran
  bool runs = false;    ///< STARTED, RAN and EXIT: the last attempt (--long)
};

// The header of the table with `columns`.
std::vector<std::string> Header(const Columns& columns) {
  std::vector<std::string> header = {"ID", "STATE", "PRI", "QUEUE"};
  if (columns.owners) header.push_back("OWNER");
  if (columns.hosts) header.push_back("HOST");
  header.push_back("CREATED");
  if (columns.runs)
    for (const char* h : {"STARTED", "RAN", "EXIT"}) header.push_back(h);
  for (const char* h : {"WHEN", "COMMAND"}) header.push_back(h);
  return header;
}

// The table rows of one page of tasks, with `columns`; a running task's RAN counts to `now_ms`.
std::vector<std::vector<std::string>> Rows(const nlohmann::json& tasks, const Columns& columns,
                                           int64_t now_ms) {
  std::vector<std::vector<std::string>> rows;
  for (const auto& t : tasks) {
    std::vector<std::string> row = {t["id"].dump(),
                                    PaintState(t.value("state", ""), columns.colour),
                                    t["priority"].dump(), t.value("queue", "")};
    if (columns.owners) row.push_back(t["owner"].value("name", ""));
    if (columns.hosts) row.push_back(HostOf(t));
    row.push_back(LocalTime(t["created"]));
    if (columns.runs) {
      const nlohmann::json attempt = t.value("last_attempt", nlohmann::json());
      row.push_back(LocalTime(attempt.is_object() ? attempt.value("started", nlohmann::json())
                                                  : nlohmann::json()));
      row.push_back(LastAttemptRan(t, now_ms));
      row.push_back(ExitCell(t));
    }
    for (std::string cell : {WaitingNote(t), CommandLine(t)}) row.push_back(std::move(cell));
    rows.push_back(std::move(row));
  }
  return rows;
}

// The states `names` name (--state, repeated or separated by commas), each once; a name that is
// no state is refused naming the flag and the names it takes. `succeeded` is only that state.
Result<std::vector<TaskState>> StatesNamed(const std::vector<std::string>& names) {
  std::vector<TaskState> states;
  for (const std::string& name : names) {
    const std::optional<TaskState> s = StateFromName(name);
    if (!s)
      return Status::Invalid(
          "--state", "--state: " + Quote(name) + " is not one of " + StateNames(AnyState()));
    if (std::find(states.begin(), states.end(), *s) == states.end()) states.push_back(*s);
  }
  return states;
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
    std::vector<std::string> states;
    std::string queue, label, user, command;
    int limit = -1;  // -1: not given (the newest 100 in a table, every match with --json)
    bool runs = false;
  };
  auto f = std::make_shared<Flags>();
  sub->add_option("--state", f->states,
                  StateNames(AnyState()) + "; repeat or separate with commas for several")
      ->delimiter(',');
  sub->add_option("-q,--queue", f->queue, "only this queue");
  sub->add_option("--label", f->label, "only tasks with this label");
  sub->add_option("-u,--user", f->user, "only this user's tasks (admins: any user)");
  sub->add_option("--command", f->command,
                  "only tasks whose command holds this text (ASCII case ignored)");
  sub->add_option("--limit", f->limit, "at most this many; 0: all (default: 100, all with --json)")
      ->check(DecimalCheck({0, std::numeric_limits<int>::max(), "a limit"}));
  sub->add_flag("-l,--long", f->runs,
                "also when each task last started (STARTED), how long it ran (RAN) and how it "
                "ended (EXIT)");
  return {sub, [f, &g]() {
            ListRequest req;
            auto states = StatesNamed(f->states);
            if (!states.ok()) return Fail(states.status());
            req.states = std::move(*states);
            if (!f->queue.empty()) req.queue = f->queue;
            if (!f->label.empty()) req.label = f->label;
            if (!f->user.empty()) req.user = f->user;
            if (!f->command.empty()) req.command = f->command;
            auto client = Client::Connect(g.socket);
            if (!client.ok()) return Fail(client.status());
            TablePrinter table(TableWidth());
            Columns columns{.colour = StdoutColour(g.json), .runs = f->runs};
            // What a script reads (--json) gets every match; a table the newest 100.
            const int limit = f->limit == 0 || (f->limit < 0 && g.json)
                                  ? std::numeric_limits<int>::max()
                                  : (f->limit < 0 ? 100 : f->limit);
            int shown = 0;
            bool more = true;
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
                  columns.owners = OthersAmong(tasks);
                  columns.hosts = r->value("shared", false);
                }
                auto rows = Rows(tasks, columns, RealClock().WallNow());
                if (shown == 0) rows.insert(rows.begin(), Header(columns));
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
