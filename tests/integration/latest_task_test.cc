// `tq logs` and `tq wait` with no id and no filter act on the caller's latest task (issue 48, as
// `tsp -c` and `tsp -w` do): the newest task the caller owns, root's own for root; stdout is that
// task's output only. Without a task of one's own they say so and exit 4; the verbs that change
// tasks (cancel, retry) still want ids or a filter.
#include <doctest/doctest.h>

#include <string>

#include "support/skip.h"
#include "support/temp_user.h"
#include "support/test_daemon.h"

using namespace tqtest;

TEST_CASE("tq logs and tq wait with no id act on the caller's latest task") {
  TestDaemon d;
  TQ_LOG_ON_FAILURE(d);
  SUBCASE("no task yet: a clear error, exit 4") {
    const RunResult logs = Tq(d, {"logs"});
    CHECK(logs.exit_code == 4);
    CHECK(logs.out.empty());
    CHECK_MESSAGE(logs.err.find("you have no tasks (tq logs with no id") != std::string::npos,
                  logs.err);
    const RunResult wait = Tq(d, {"wait"});
    CHECK(wait.exit_code == 4);
    CHECK_MESSAGE(wait.err.find("you have no tasks (tq wait with no id") != std::string::npos,
                  wait.err);
  }
  SUBCASE("the newest task: its exit status and its output alone") {
    const std::string first = Submit(d, {"--", "sh", "-c", "echo one"});
    CHECK(Tq(d, {"wait", first}).exit_code == 0);
    const std::string second = Submit(d, {"--", "sh", "-c", "echo two; echo err >&2; exit 3"});
    const RunResult wait = Tq(d, {"wait"});
    CHECK(wait.exit_code == 3);
    CHECK(wait.out.empty());
    CHECK_MESSAGE(wait.err.find("task " + second + " failed (exit): exit 3") != std::string::npos,
                  wait.err);
    const RunResult logs = Tq(d, {"logs"});
    CHECK_MESSAGE(logs.exit_code == 0, logs.err);
    CHECK(logs.out == "two\n");
    CHECK(logs.err.empty());
    CHECK(Tq(d, {"logs", "--stderr"}).out == "err\n");
    const auto lines = JsonLines(Tq(d, {"--json", "wait"}).out);
    REQUIRE(lines.size() == 1);
    CHECK(std::to_string(lines[0]["id"].get<long long>()) == second);

    // The verbs that change tasks still want to be told which.
    const RunResult cancel = Tq(d, {"cancel"});
    CHECK(cancel.exit_code == 2);
    CHECK(cancel.err.find("cancel needs task ids or a filter") != std::string::npos);
    const RunResult retry = Tq(d, {"retry"});
    CHECK(retry.exit_code == 2);
    CHECK(retry.err.find("retry needs task ids") != std::string::npos);
    CHECK(TaskState(d, second) == "failed");
  }
  SUBCASE("tq logs -f follows the latest task until it ends") {
    const std::string gate = d.dir() + "/gate";
    const std::string id = Submit(d, {"--", "sh", "-c",
                                      "echo start; while [ ! -e " + Quoted(gate) +
                                          " ]; do sleep 0.05; "
                                          "done; echo end"});
    auto follow = TqBackground(d, {"logs", "-f"});
    REQUIRE(follow->WaitOutput([](const std::string& out) { return out == "start\n"; }));
    WriteFile(gate, "");
    const RunResult r = follow->Finish();
    CHECK_MESSAGE(r.exit_code == 0, r.err);
    CHECK(r.out == "start\nend\n");
    CHECK(TaskState(d, id) == "succeeded");
  }
}

TEST_CASE("the latest task is the caller's own, also for root") {
  if (!CanMakeUsers()) TQ_SKIP("needs root and useradd");
  TestDaemon d;
  TQ_LOG_ON_FAILURE(d);
  TempUser alice;
  const std::string mine = Submit(d, {"--", "sh", "-c", "echo root"});
  CHECK(Tq(d, {"wait", mine}).exit_code == 0);
  const std::string hers = SubmitAs(d, alice, {"--", "sh", "-c", "echo alice; exit 5"});
  REQUIRE(WaitState(d, hers, "failed"));

  // Root sees every task, but its latest is its own: not alice's newer one.
  const RunResult root_logs = Tq(d, {"logs"});
  CHECK_MESSAGE(root_logs.exit_code == 0, root_logs.err);
  CHECK(root_logs.out == "root\n");
  CHECK(Tq(d, {"wait"}).exit_code == 0);

  const RunResult her_logs = TqAs(d, alice.run_as(), {"logs"});
  CHECK_MESSAGE(her_logs.exit_code == 0, her_logs.err);
  CHECK(her_logs.out == "alice\n");
  CHECK(TqAs(d, alice.run_as(), {"wait"}).exit_code == 5);

  TempUser bob;  // no task of his own, though others have some
  const RunResult none = TqAs(d, bob.run_as(), {"logs"});
  CHECK(none.exit_code == 4);
  CHECK_MESSAGE(none.err.find("you have no tasks") != std::string::npos, none.err);
}
