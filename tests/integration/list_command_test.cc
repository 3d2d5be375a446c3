// tq list --command: tasks found by the text of their command (argv, shell text, stages), ASCII
// case ignored, together with the other filters, also when the match is older than what tqd reads
// for one page (kMaxListScan); an overlong text is refused. --state takes several states (repeated
// or with commas); --long adds STARTED, RAN and EXIT. And status --json's env_names.
#include <doctest/doctest.h>

#include <algorithm>
#include <set>

#include "support/test_daemon.h"

using namespace tqtest;

namespace {

// The ids of the tasks `tq list --json ARGS` shows.
std::set<std::string> ListedIds(const TestDaemon& d, std::vector<std::string> args) {
  std::set<std::string> ids;
  for (const auto& t : ListTasks(d, std::move(args))) ids.insert(t["id"].dump());
  return ids;
}

// The cells of the row of task `id` in a `tq list` table (the header row for "ID"), cut where the
// header's columns start, trailing spaces dropped; none when no row starts with `id`.
std::vector<std::string> RowOf(const std::string& table, const std::string& id) {
  std::vector<std::string> lines;
  for (size_t at = 0; at < table.size();) {
    const size_t end = table.find('\n', at);
    lines.push_back(table.substr(at, end - at));
    at = end == std::string::npos ? table.size() : end + 1;
  }
  if (lines.empty()) return {};
  std::vector<size_t> starts = {0};  // a column starts after two spaces
  for (size_t i = 2; i < lines[0].size(); ++i)
    if (lines[0][i] != ' ' && lines[0].compare(i - 2, 2, "  ") == 0) starts.push_back(i);
  for (const std::string& line : lines) {
    if (line.rfind(id + " ", 0) != 0) continue;
    std::vector<std::string> cells;
    for (size_t c = 0; c < starts.size(); ++c) {
      const size_t to = c + 1 < starts.size() ? starts[c + 1] : line.size();
      std::string cell = starts[c] < line.size() ? line.substr(starts[c], to - starts[c]) : "";
      cell.erase(cell.find_last_not_of(' ') + 1);
      cells.push_back(cell);
    }
    return cells;
  }
  return {};
}

}  // namespace

TEST_CASE("tq list --state takes several states, repeated or separated by commas") {
  TestDaemon d;
  TQ_LOG_ON_FAILURE(d);
  const std::string failed = Submit(d, {"--", "false"});
  const std::string succeeded = Submit(d, {"--", "true"});
  const std::string cancelled = Submit(d, {"--delay", "1h", "--", "true"});
  const std::string pending = Submit(d, {"--delay", "1h", "--", "true"});
  REQUIRE(Tq(d, {"cancel", cancelled}).exit_code == 0);
  REQUIRE(WaitState(d, failed, "failed"));
  REQUIRE(WaitState(d, succeeded, "succeeded"));

  const std::set<std::string> failed_or_cancelled{failed, cancelled};
  CHECK(ListedIds(d, {"--state", "failed,cancelled"}) == failed_or_cancelled);
  CHECK(ListedIds(d, {"--state", "failed", "--state", "cancelled"}) == failed_or_cancelled);
  CHECK(ListedIds(d, {"--state", "cancelled,failed", "--state", "failed"}) == failed_or_cancelled);
  CHECK(ListedIds(d, {"--state", "pending,succeeded"}) ==
        std::set<std::string>{pending, succeeded});
  CHECK(ListedIds(d, {"--state", "succeeded"}) == std::set<std::string>{succeeded});
  CHECK(ListedIds(d, {"--state", "running,expired"}).empty());
  // Several states with the other filters, in the table too.
  CHECK(ListedIds(d, {"--state", "failed,cancelled", "--command", "false"}) ==
        std::set<std::string>{failed});
  const RunResult table = Tq(d, {"list", "--state", "failed,pending"});
  REQUIRE(table.exit_code == 0);
  CHECK(RowOf(table.out, failed).size() > 1);
  CHECK(RowOf(table.out, pending).size() > 1);
  CHECK(RowOf(table.out, succeeded).empty());

  const RunResult unknown = Tq(d, {"list", "--state", "failed,done"});
  CHECK(unknown.exit_code == 2);
  CHECK(unknown.out == "");
  CHECK(unknown.err ==
        "tq: --state: \"done\" is not one of pending running succeeded failed cancelled "
        "expired\n");
}

TEST_CASE("tq list --long shows when the last attempt started, how long it ran and its exit") {
  TestDaemon d;
  TQ_LOG_ON_FAILURE(d);
  const std::string exited = Submit(d, {"--shell", "sleep 1.2; exit 3"});
  const std::string killed = Submit(d, {"--shell", "kill -KILL $$"});
  const std::string running = Submit(d, {"--", "sleep", "60"});
  const std::string pending = Submit(d, {"--delay", "1h", "--", "true"});
  const std::string cancelled = Submit(d, {"--delay", "1h", "--", "true"});
  REQUIRE(Tq(d, {"cancel", cancelled}).exit_code == 0);
  REQUIRE(WaitState(d, exited, "failed"));
  REQUIRE(WaitState(d, killed, "failed"));
  REQUIRE(WaitState(d, running, "running"));

  // The JSON carries the last attempt in place of the attempt log.
  for (const nlohmann::json& t : ListTasks(d)) {
    CHECK_FALSE(t.contains("attempt_log"));
    REQUIRE(t.contains("last_attempt"));
  }
  const std::vector<nlohmann::json> one = ListTasks(d, {"--command", "exit 3"});
  REQUIRE(one.size() == 1);
  CHECK(one[0]["last_attempt"]["exit_code"] == 3);
  CHECK(one[0]["last_attempt"]["duration_ms"].get<long long>() >= 1200);
  CHECK(one[0]["last_attempt"]["started"].is_string());
  CHECK(ListTasks(d, {"--state", "pending"})[0]["last_attempt"].is_null());

  const RunResult table = Tq(d, {"list", "--long"});
  REQUIRE(table.exit_code == 0);
  CAPTURE(table.out);
  const std::vector<std::string> header = RowOf(table.out, "ID");
  CHECK(header == std::vector<std::string>{"ID", "STATE", "PRI", "QUEUE", "CREATED", "STARTED",
                                           "RAN", "EXIT", "WHEN", "COMMAND"});
  const std::vector<std::string> e = RowOf(table.out, exited);
  REQUIRE(e.size() == 10);
  CHECK(e[5] != "-");
  CHECK(e[6] != "-");  // 1.2s and a little more
  CHECK(e[6].back() == 's');
  CHECK(e[7] == "3");
  CHECK(RowOf(table.out, killed)[7] == "SIGKILL");
  const std::vector<std::string> r = RowOf(table.out, running);
  REQUIRE(r.size() == 10);
  CHECK(r[5] != "-");
  CHECK(r[6].back() == 's');  // counted to now
  CHECK(r[7] == "");          // not finished: blank
  const std::vector<std::string> p = RowOf(table.out, pending);
  REQUIRE(p.size() == 10);
  CHECK(p[5] == "-");
  CHECK(p[6] == "-");
  CHECK(p[7] == "");
  const std::vector<std::string> c = RowOf(table.out, cancelled);
  REQUIRE(c.size() == 10);
  CHECK(c[6] == "-");
  CHECK(c[7] == "-");  // finished without running

  const RunResult short_flag = Tq(d, {"list", "-l", "--state", "failed"});
  REQUIRE(short_flag.exit_code == 0);
  CHECK(RowOf(short_flag.out, "ID").size() == 10);
  // Without it, the table is as before.
  CHECK(RowOf(Tq(d, {"list"}).out, "ID") ==
        std::vector<std::string>{"ID", "STATE", "PRI", "QUEUE", "CREATED", "WHEN", "COMMAND"});
  REQUIRE(Tq(d, {"cancel", running}).exit_code == 0);
}

TEST_CASE("tq list --command finds tasks by their command's text, ASCII case ignored") {
  TestDaemon d;
  TQ_LOG_ON_FAILURE(d);
  const std::string argv = Submit(d, {"--delay", "1h", "--", "backup", "--FULL", "/srv"});
  const std::string shell =
      Submit(d, {"--delay", "1h", "--shell", "rsync -a /srv /mnt && echo ok"});
  const std::string staged = Submit(d, {"--delay", "1h", "--stage", "dump", "--", "pg_dump", "app",
                                        "--stage", "ship", "--shell", "scp dump backup-host:"});
  const std::string other = Submit(d, {"--", "true"});
  REQUIRE(WaitState(d, other, "succeeded"));

  CHECK(ListedIds(d, {"--command", "Backup --full"}) == std::set<std::string>{argv});
  CHECK(ListedIds(d, {"--command", "/SRV"}) == std::set<std::string>{argv, shell});
  CHECK(ListedIds(d, {"--command", "PG_DUMP"}) == std::set<std::string>{staged});
  CHECK(ListedIds(d, {"--command", "backup"}) == std::set<std::string>{argv, staged});
  CHECK(ListedIds(d, {"--command", "backup", "--state", "succeeded"}).empty());
  CHECK(ListedIds(d, {"--command", "true", "--state", "succeeded"}) ==
        std::set<std::string>{other});
  CHECK(ListedIds(d, {"--command", "nothing like it"}).empty());

  const RunResult table = Tq(d, {"list", "--command", "rsync"});
  REQUIRE(table.exit_code == 0);
  // A row starts with its id (a bare "1 " may also end a time such as 13:16:11).
  CHECK(table.out.find("\n" + shell + " ") != std::string::npos);
  CHECK(table.out.find("\n" + argv + " ") == std::string::npos);

  const RunResult longer = Tq(d, {"list", "--command", std::string(1025, 'x')});
  CHECK(longer.exit_code == 2);
  CHECK(longer.err == "tq: command: 1025 bytes is longer than the 1024 allowed\n");
}

TEST_CASE("tq list --command finds a match older than one request reads, with one header") {
  TestDaemon d;
  TQ_LOG_ON_FAILURE(d);
  const std::string needle = Submit(d, {"--delay", "1h", "--", "echo", "the-needle"});
  // More tasks after it than tqd reads for one page (10000): the list asks again, from where
  // tqd stopped, until it reaches the match.
  std::string batch;
  for (int i = 0; i < 5000; ++i) batch += "true hay\n";
  for (int round = 0; round < 3; ++round) {
    const RunResult r = Tq(d, {"submit", "--batch", "--delay", "1h"}, batch);
    REQUIRE_MESSAGE(r.exit_code == 0, r.err);
  }
  const std::vector<nlohmann::json> found = ListTasks(d, {"--command", "THE-NEEDLE"});
  REQUIRE(found.size() == 1);
  CHECK(found[0]["id"].dump() == needle);
  const RunResult table = Tq(d, {"list", "--command", "the-needle"});
  REQUIRE(table.exit_code == 0);
  CHECK(std::count(table.out.begin(), table.out.end(), '\n') == 2);  // the header once, the match
  CHECK(table.out.rfind("ID ", 0) == 0);
  CHECK(table.out.find("HOST") == std::string::npos);  // one host's store: no host column
}

TEST_CASE("tq status --json names the task's environment without its values") {
  TestDaemon d;
  TQ_LOG_ON_FAILURE(d);
  const std::string id = Submit(d, {"--delay", "1h", "--", "true"});
  const nlohmann::json task = TaskJson(d, id);
  const auto names = task["env_names"].get<std::vector<std::string>>();
  CHECK(std::find(names.begin(), names.end(), "PATH") != names.end());
  CHECK_FALSE(task.contains("env"));
  CHECK(task.dump().find("PATH=") == std::string::npos);
}
