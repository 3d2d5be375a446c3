// tq list filters (--state, --queue, --label, --limit), tq logs -f following a running task,
// and tq logs --attempt and --json.
#include <doctest/doctest.h>

#include <algorithm>
#include <set>

#include "support/test_daemon.h"

using namespace tqtest;

namespace {
// The ids in `tq list ARGS --json`, as printed.
std::vector<std::string> ListIds(const TestDaemon& d, std::vector<std::string> args) {
  args.insert(args.begin(), "list");
  args.push_back("--json");
  const RunResult r = Tq(d, args);
  REQUIRE_MESSAGE(r.exit_code == 0, r.err);
  std::vector<std::string> ids;
  for (const auto& t : JsonLines(r.out)) ids.push_back(std::to_string(t["id"].get<long long>()));
  return ids;
}

std::set<std::string> AsSet(const std::vector<std::string>& v) {
  return {v.begin(), v.end()};
}
}  // namespace

TEST_CASE("tq list filters by state and queue and label and limits newest first") {
  TestDaemon d;
  TQ_LOG_ON_FAILURE(d);
  const std::string a = Submit(d, {"--queue", "qa", "--label", "x", "--", "true"});
  const std::string b = Submit(d, {"--queue", "qb", "--label", "y", "--", "false"});
  const std::string c =
      Submit(d, {"--queue", "qa", "--label", "x", "--label", "z", "--", "sh", "-c", "exit 3"});
  const std::string p = Submit(d, {"--queue", "qb", "--delay", "1h", "--", "true"});
  CHECK(Tq(d, {"wait", a, b, c}).exit_code == 1);  // b's `false` exits 1

  CHECK(AsSet(ListIds(d, {})) == std::set<std::string>{a, b, c, p});
  CHECK(AsSet(ListIds(d, {"--state", "failed"})) == std::set<std::string>{b, c});
  CHECK(AsSet(ListIds(d, {"--state", "succeeded"})) == std::set<std::string>{a});
  CHECK(AsSet(ListIds(d, {"--state", "pending"})) == std::set<std::string>{p});
  CHECK(ListIds(d, {"--state", "running"}).empty());
  CHECK(AsSet(ListIds(d, {"--queue", "qa"})) == std::set<std::string>{a, c});
  CHECK(AsSet(ListIds(d, {"--label", "x"})) == std::set<std::string>{a, c});
  CHECK(AsSet(ListIds(d, {"--label", "z"})) == std::set<std::string>{c});
  CHECK(AsSet(ListIds(d, {"--queue", "qa", "--state", "failed"})) == std::set<std::string>{c});
  CHECK(ListIds(d, {"--label", "nope"}).empty());
  CHECK(ListIds(d, {"--limit", "1"}) == std::vector<std::string>{p});
  CHECK(ListIds(d, {"--limit", "2"}) == std::vector<std::string>{p, c});

  const RunResult table = Tq(d, {"list"});  // the human table
  CHECK(table.exit_code == 0);
  CHECK(table.out.find("STATE") != std::string::npos);
  CHECK(Tq(d, {"cancel", p}).exit_code == 0);
}

TEST_CASE("tq logs -f prints output as it arrives and returns when the task ends") {
  TestDaemon d;
  TQ_LOG_ON_FAILURE(d);
  const std::string go = d.dir() + "/go";
  const std::string id = Submit(
      d, {"--", "sh", "-c", "echo one; while [ ! -e " + go + " ]; do sleep 0.05; done; echo two"});
  auto follow = TqBackground(d, {"logs", "-f", id});
  INFO("tq logs -f stderr: " << follow->err());
  // "one" must show up while the task still runs (it cannot end before `go` exists).
  CHECK(follow->WaitOutput([](const std::string& out) { return out == "one\n"; }));
  CHECK(TaskState(d, id) == "running");
  WriteFile(go, "");
  const RunResult r = follow->Finish();
  CHECK(r.exit_code == 0);
  CHECK(r.out == "one\ntwo\n");
  CHECK(TaskState(d, id) == "succeeded");
}

TEST_CASE("tq logs --attempt N prints that attempt's output, --json one line per chunk") {
  TestDaemon d;
  TQ_LOG_ON_FAILURE(d);
  const std::string id =
      Submit(d, {"--retries", "2", "--backoff", "fixed", "--backoff-base", "10ms", "--", "sh", "-c",
                 "echo \"try $TQ_ATTEMPT\"; echo \"err $TQ_ATTEMPT\" >&2; exit 3"});
  REQUIRE(Tq(d, {"wait", id}).exit_code == 3);
  CHECK(Tq(d, {"logs", id}).out == "try 3\n");
  for (const char* n : {"1", "2", "3"}) {
    CAPTURE(n);
    const RunResult out = Tq(d, {"logs", id, "--attempt", n});
    CHECK(out.exit_code == 0);
    CHECK(out.out == std::string("try ") + n + "\n");
    CHECK(Tq(d, {"logs", id, "--attempt", n, "--stderr"}).out == std::string("err ") + n + "\n");
  }
  // -f on an attempt that has ended returns at once with its output.
  CHECK(Tq(d, {"logs", id, "--attempt", "1", "-f"}).out == "try 1\n");

  const RunResult missing = Tq(d, {"logs", id, "--attempt", "4"});
  CHECK(missing.exit_code == 4);
  CHECK(missing.err == "tq: attempt: task " + id + " has no attempt 4 (it has 3)\n");
  CHECK(Tq(d, {"logs", id, "--attempt", "0"}).exit_code == 2);

  const RunResult json = Tq(d, {"logs", id, "--attempt", "2", "--stderr", "--json"});
  REQUIRE(json.exit_code == 0);
  const std::vector<nlohmann::json> lines = JsonLines(json.out);
  REQUIRE(lines.size() == 1);
  CHECK(lines[0]["id"] == std::stoll(id));
  CHECK(lines[0]["attempt"] == 2);
  CHECK(lines[0]["stream"] == "stderr");
  CHECK(lines[0]["offset"] == 0);
  CHECK(lines[0]["data"] == "err 2\n");
}

TEST_CASE("tq list --json leaves out attempt_log, which tq status fills, never showing it empty") {
  TestDaemon d;
  TQ_LOG_ON_FAILURE(d);
  const std::string id = Submit(d, {"--", "true"});
  REQUIRE(Tq(d, {"wait", id}).exit_code == 0);
  const std::vector<nlohmann::json> listed = ListTasks(d);
  REQUIRE(listed.size() == 1);
  CHECK(listed[0]["attempts"] == 1);
  CHECK_FALSE(listed[0].contains("attempt_log"));
  const nlohmann::json status = TaskJson(d, id);
  CHECK(status["attempts"] == 1);
  CHECK(status["attempt_log"].size() == 1);
}

TEST_CASE("tq status shows the task's working directory and timeout") {
  TestDaemon d;
  TQ_LOG_ON_FAILURE(d);
  const std::string timed = Submit(d, {"--timeout", "90s", "--delay", "1h", "--", "true"});
  const std::string plain = Submit(d, {"--delay", "1h", "--", "true"});
  // The value on the line of `field` (after the column's padding), "" when there is none.
  const auto field = [&](const std::string& id, const std::string& name) {
    const RunResult r = Tq(d, {"status", id});
    REQUIRE(r.exit_code == 0);
    size_t at = r.out.find("\n" + name + " ");
    if (at == std::string::npos) return std::string();
    at = r.out.find_first_not_of(' ', at + 1 + name.size());
    return r.out.substr(at, r.out.find('\n', at) - at);
  };
  char cwd[4096];
  REQUIRE(getcwd(cwd, sizeof cwd) != nullptr);
  CHECK(field(timed, "directory") == cwd);
  CHECK(field(timed, "timeout") == "1m30s");
  CHECK(field(plain, "timeout") == "none");
}
