// Responses stay within the 16 MiB frame: tq list fetches pages of at most 1000 tasks and says
// when it stopped at its limit; tq cancel of thousands of large tasks answers with a summary
// each. Also what tq list and tq status say about pending and running tasks.
#include <doctest/doctest.h>

#include <algorithm>
#include <set>

#include "support/test_daemon.h"

using namespace tqtest;

namespace {

constexpr int kTasks = 3000;
// Each task's command: ~6 KB, so all of them (18 MB) would not fit one frame.
const std::string kPadding(6000, 'x');

// Submits `n` delayed tasks in one batch; returns their ids.
std::vector<std::string> SubmitDelayed(const TestDaemon& d, int n) {
  std::string input;
  for (int i = 0; i < n; ++i) input += "true " + kPadding + "\n";
  const RunResult r = Tq(d, {"submit", "--batch", "--delay", "1h"}, input);
  REQUIRE_MESSAGE(r.exit_code == 0, r.err);
  std::vector<std::string> ids;
  size_t start = 0;
  for (size_t nl; (nl = r.out.find('\n', start)) != std::string::npos; start = nl + 1)
    ids.push_back(r.out.substr(start, nl - start));
  REQUIRE(ids.size() == static_cast<size_t>(n));
  return ids;
}

}  // namespace

TEST_CASE("tq list and tq cancel of more tasks than one frame holds" *
          doctest::test_suite("long")) {
  TestDaemon d;
  TQ_LOG_ON_FAILURE(d);
  // Two batches: one batch request of all of them would itself be larger than a frame.
  std::vector<std::string> ids = SubmitDelayed(d, kTasks / 2);
  const std::vector<std::string> more = SubmitDelayed(d, kTasks / 2);
  ids.insert(ids.end(), more.begin(), more.end());

  // Every task, newest first, each once, over several pages.
  const std::vector<nlohmann::json> all = ListTasks(d);
  REQUIRE(all.size() == static_cast<size_t>(kTasks));
  std::set<long long> seen;
  for (size_t i = 0; i < all.size(); ++i) {
    seen.insert(all[i]["id"].get<long long>());
    if (i > 0) CHECK(all[i]["id"].get<long long>() < all[i - 1]["id"].get<long long>());
  }
  CHECK(seen.size() == all.size());
  CHECK(all.front()["id"].get<long long>() == std::stoll(ids.back()));

  // A limit inside the second page: exactly that many, and a note on stderr.
  const RunResult part = Tq(d, {"list", "--json", "--limit", "1500"});
  REQUIRE(part.exit_code == 0);
  CHECK(JsonLines(part.out).size() == 1500);
  const RunResult table = Tq(d, {"list", "--limit", "1500"});
  REQUIRE(table.exit_code == 0);
  CHECK(table.err == "(showing the newest 1500; --limit N for more)\n");
  CHECK(std::count(table.out.begin(), table.out.end(), '\n') == 1501);  // and the header
  // A limit that takes everything says nothing more.
  const RunResult whole = Tq(d, {"list", "--limit", std::to_string(kTasks)});
  REQUIRE(whole.exit_code == 0);
  CHECK(whole.err == "");
  // What a script reads is never cut short: --json without --limit gives every match, and
  // --limit 0 is all, as a table too.
  const RunResult json = Tq(d, {"list", "--json"});
  REQUIRE(json.exit_code == 0);
  CHECK(JsonLines(json.out).size() == static_cast<size_t>(kTasks));
  CHECK(json.err == "");
  const RunResult zero = Tq(d, {"list", "--limit", "0"});
  REQUIRE(zero.exit_code == 0);
  CHECK(std::count(zero.out.begin(), zero.out.end(), '\n') == kTasks + 1);
  CHECK(zero.err == "");
  const RunResult table_default = Tq(d, {"list"});
  CHECK(table_default.err == "(showing the newest 100; --limit N for more)\n");

  // Cancel every one (an unknown id among them refuses the lot, naming it, first).
  std::vector<std::string> args = {"cancel"};
  args.insert(args.end(), ids.begin(), ids.end());
  std::vector<std::string> with_unknown = args;
  with_unknown.push_back("999999999");
  const RunResult unknown = Tq(d, with_unknown);
  CHECK(unknown.exit_code == 4);
  CHECK(unknown.err.find("999999999") != std::string::npos);
  CHECK(TaskState(d, ids.front()) == "pending");

  args.push_back("--json");
  const RunResult cancel = Tq(d, args);
  REQUIRE_MESSAGE(cancel.exit_code == 0, cancel.err);
  const std::vector<nlohmann::json> ended = JsonLines(cancel.out);
  REQUIRE(ended.size() == static_cast<size_t>(kTasks));
  for (const auto& t : ended) {
    CHECK(t["state"] == "cancelled");
    CHECK(t["reason"] == "cancelled");
  }
  CHECK(TaskState(d, ids.back()) == "cancelled");
}

TEST_CASE("tq list says when a pending task can run, tq status shows a running task's pid") {
  TestDaemon d("[queues.held]\n");
  TQ_LOG_ON_FAILURE(d);
  REQUIRE(Tq(d, {"queue", "pause", "held"}).exit_code == 0);
  const std::string gate = d.dir() + "/gate";
  const std::string running =
      Submit(d, {"--", "sh", "-c", "while [ ! -e '" + gate + "' ]; do sleep 0.05; done"});
  const std::string later = Submit(d, {"--delay", "2h", "--", "true"});
  const std::string after = Submit(d, {"--after", running, "--", "true"});
  const std::string held = Submit(d, {"--queue", "held", "--", "true"});
  REQUIRE(WaitState(d, running, "running"));

  for (const auto& t : ListTasks(d, {"--state", "pending"})) {
    const std::string id = std::to_string(t["id"].get<long long>());
    const auto& w = t["waiting"];
    CAPTURE(t.dump());
    CHECK(w["until"].is_string() == (id == later));
    CHECK(w["after"] ==
          (id == after ? nlohmann::json::array({std::stoll(running)}) : nlohmann::json::array()));
    CHECK(w["queue_paused"] == (id == held));
  }
  const RunResult table = Tq(d, {"list"});
  REQUIRE(table.exit_code == 0);
  CHECK(table.out.find("WHEN") != std::string::npos);
  CHECK(table.out.find("queue paused") != std::string::npos);
  CHECK(table.out.find("after " + running) != std::string::npos);
  CHECK(table.out.find(" at ") != std::string::npos);

  // A running task: its pid and how long it has run. Piped output is not cut at 80 columns.
  long long pid = 0;
  REQUIRE(WaitFor([&] {
    pid = TaskJson(d, running)["attempt_log"].back()["pid"].get<long long>();
    return pid > 0;
  }));
  const RunResult status = Tq(d, {"status", running});
  REQUIRE(status.exit_code == 0);
  CHECK(status.out.find("\npid ") != std::string::npos);
  CHECK(status.out.find(" " + std::to_string(pid) + "\n") != std::string::npos);
  CHECK(status.out.find("\nrunning for ") != std::string::npos);
  CHECK(status.out.find("sleep 0.05; done'\n") != std::string::npos);  // the whole command
  CHECK(status.out.find('~') == std::string::npos);
  const RunResult pending = Tq(d, {"status", held});
  CHECK(pending.out.find("queue paused") != std::string::npos);

  WriteFile(gate, "");
  CHECK(Tq(d, {"wait", running}).exit_code == 0);
  CHECK(Tq(d, {"cancel", later, held}).exit_code == 0);
  CHECK(Tq(d, {"wait", after}).exit_code == 0);
}
