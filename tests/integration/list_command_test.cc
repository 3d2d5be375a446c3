// tq list --command: tasks found by the text of their command (argv, shell text, stages), ASCII
// case ignored, together with the other filters, also when the match is older than what tqd reads
// for one page (kMaxListScan); an overlong text is refused. And status --json's env_names.
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

}  // namespace

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
