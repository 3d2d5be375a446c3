// Per-user limits of the system daemon (SPEC 8): each refusal names the limit and its value and
// changes nothing, a user's running cap holds while others' tasks start, and one user's flood of
// tasks never starves another user's few. The users are made for each test (root only).
#include <sys/stat.h>
#include <unistd.h>

#include <doctest/doctest.h>

#include <fstream>
#include <string>

#include "support/skip.h"
#include "support/temp_user.h"
#include "support/test_daemon.h"

using namespace tqtest;

namespace {
// `who`'s tasks in `state`, as `tq list` shows them to that user.
size_t CountAs(const TestDaemon& d, const TempUser& who, const std::string& state) {
  return JsonLines(TqAs(d, who.run_as(), {"list", "--json", "--state", state}).out).size();
}

}  // namespace

TEST_CASE("each per-user limit refuses with its name and value and changes nothing") {
  if (!CanMakeUsers()) TQ_SKIP("needs root and useradd");
  TempUser pending, rate, output;
  TestDaemon d("[users." + pending.name() + "]\nmax_pending = 2\n[users." + rate.name() +
               "]\nsubmit_rate = 0.001\nsubmit_burst = 2\n[users." + output.name() +
               "]\noutput_bytes = 100\n");
  TQ_LOG_ON_FAILURE(d);

  SubmitAs(d, pending, {"--delay", "1h", "--", "true"});
  SubmitAs(d, pending, {"--delay", "1h", "--", "true"});
  const RunResult third = TrySubmitAs(d, pending, {"--delay", "1h", "--", "true"});
  CHECK(third.exit_code == 2);
  CHECK_MESSAGE(third.err.find("max_pending") != std::string::npos, third.err);
  CHECK(third.err.find("max_pending allows 2") != std::string::npos);
  const RunResult batch = TrySubmitAs(d, pending, {"--batch"}, {}, "true\ntrue\n");
  CHECK(batch.exit_code == 2);
  CHECK(batch.err.find("max_pending") != std::string::npos);
  CHECK(CountAs(d, pending, "pending") == 2);
  // A retried task is pending again: it counts as a submit.
  const std::vector<std::string> ids = [&] {
    std::vector<std::string> out;
    for (const auto& t : JsonLines(TqAs(d, pending.run_as(), {"list", "--json"}).out))
      out.push_back(std::to_string(t["id"].get<long long>()));
    return out;
  }();
  REQUIRE(ids.size() == 2);
  REQUIRE(TqAs(d, pending.run_as(), {"cancel", ids[0]}).exit_code == 0);
  SubmitAs(d, pending, {"--delay", "1h", "--", "true"});
  const RunResult retry = TqAs(d, pending.run_as(), {"retry", ids[0]});
  CHECK(retry.exit_code == 2);
  CHECK_MESSAGE(retry.err.find("max_pending allows 2") != std::string::npos, retry.err);
  CHECK(TaskState(d, ids[0]) == "cancelled");

  SubmitAs(d, rate, {"--delay", "1h", "--", "true"});
  SubmitAs(d, rate, {"--delay", "1h", "--", "true"});
  const RunResult fast = TrySubmitAs(d, rate, {"--delay", "1h", "--", "true"});
  CHECK(fast.exit_code == 2);
  CHECK_MESSAGE(fast.err.find("submit_rate") != std::string::npos, fast.err);
  CHECK(fast.err.find("0.001 tasks a second, 2 at once") != std::string::npos);
  CHECK(fast.err.find("try again in") != std::string::npos);
  const RunResult big = TrySubmitAs(d, rate, {"--batch"}, {}, "true\ntrue\ntrue\n");
  CHECK(big.exit_code == 2);
  CHECK(big.err.find("submit_burst allows at once (2)") != std::string::npos);
  CHECK(CountAs(d, rate, "pending") == 2);

  const std::string id = SubmitAs(d, output, {"--", "head", "-c", "150", "/dev/zero"});
  CHECK(TqAs(d, output.run_as(), {"wait", id}).exit_code == 0);
  const RunResult more = TrySubmitAs(d, output, {"--", "true"});
  CHECK(more.exit_code == 2);
  CHECK_MESSAGE(
      more.err.find("keeps 150 bytes of output, and output_bytes allows 100") != std::string::npos,
      more.err);
  CHECK(JsonLines(TqAs(d, output.run_as(), {"list", "--json"}).out).size() == 1);

  // Root has no limits.
  for (int i = 0; i < 5; ++i) Submit(d, {"--delay", "1h", "--", "true"});
}

TEST_CASE("max_running caps one user's running tasks while others' start") {
  if (!CanMakeUsers()) TQ_SKIP("needs root and useradd");
  TempUser capped;
  TestDaemon d("max_running = 4\n[users." + capped.name() + "]\nmax_running = 1\n");
  TQ_LOG_ON_FAILURE(d);
  std::vector<std::string> ids;
  for (int i = 0; i < 3; ++i) ids.push_back(SubmitAs(d, capped, {"--", "sleep", "600"}));
  REQUIRE(WaitFor([&] { return CountAs(d, capped, "running") == 1; }));
  // Root's task starts in a free slot: the dispatcher ran and still left the capped user at 1.
  const std::string root = Submit(d, {"--", "sleep", "600"});
  REQUIRE(WaitFor([&] { return TaskState(d, root) == "running"; }));
  CHECK(CountAs(d, capped, "running") == 1);
  CHECK(CountAs(d, capped, "pending") == 2);
  // WHEN says why the pending ones wait.
  const auto pending = ListTasks(d, {"--state", "pending"});
  REQUIRE(pending.size() == 2);
  CHECK(pending[0]["waiting"]["user_max_running"] == 1);
  CHECK(TaskJson(d, pending[1]["id"].dump())["waiting"]["user_max_running"] == 1);
  CHECK(TaskJson(d, root).value("waiting", nlohmann::json()).is_null());
  const std::string table = Tq(d, {"list", "--state", "pending"}).out;
  CHECK_MESSAGE(table.find("user's max_running 1 reached") != std::string::npos, table);
  // When the running one ends, the next of the user's starts.
  const std::string first = [&] {
    for (const auto& id : ids)
      if (TaskState(d, id) == "running") return id;
    return std::string();
  }();
  REQUIRE(Tq(d, {"cancel", first}).exit_code == 0);
  CHECK(WaitFor(
      [&] { return CountAs(d, capped, "running") == 1 && CountAs(d, capped, "pending") == 1; }));
  for (const auto& id : ids) Tq(d, {"cancel", id});
  Tq(d, {"cancel", root});
}

TEST_CASE("a user with 10,000 queued tasks does not starve another user's 10") {
  if (!CanMakeUsers()) TQ_SKIP("needs root and useradd");
  TempUser flood, few;
  TestDaemon d("max_running = 2\n[user_limits]\nsubmit_burst = 20000\n");
  TQ_LOG_ON_FAILURE(d);
  const std::string log = d.dir() + "/starts";
  { std::ofstream create(log); }
  REQUIRE(chmod(log.c_str(), 0666) == 0);
  REQUIRE(chmod(d.dir().c_str(), 0711) == 0);
  std::string lines;
  for (int i = 0; i < 10000; ++i) lines += "echo A >> " + log + "; sleep 0.01\n";
  const RunResult queued = TrySubmitAs(d, flood, {"--batch"}, {}, lines);
  REQUIRE_MESSAGE(queued.exit_code == 0, queued.err);
  // The flood is running: then the other user arrives.
  REQUIRE(WaitFor([&] { return FileLines(log).size() >= 20; }));
  const size_t before = FileLines(log).size();
  std::string mine;
  for (int i = 0; i < 10; ++i) mine += "echo B >> " + log + "\n";
  REQUIRE(TrySubmitAs(d, few, {"--batch"}, {}, mine).exit_code == 0);
  REQUIRE(WaitFor([&] {
    const auto all = FileLines(log);
    return std::count(all.begin(), all.end(), "B") == 10;
  }));
  // Count the flood's starts from the other user's submit to its last start.
  const auto all = FileLines(log);
  size_t a_starts = 0, b_seen = 0;
  for (size_t i = before; i < all.size() && b_seen < 10; ++i) {
    if (all[i] == "B") ++b_seen;
    if (all[i] == "A") ++a_starts;
  }
  CAPTURE(a_starts);
  CHECK(a_starts <= 40);  // fair: about one of the flood's per one of the other's, not 10,000
  Tq(d, {"queue", "pause", "default"});
}
