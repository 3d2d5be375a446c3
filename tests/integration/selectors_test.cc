// Selectors on the verbs that act on many tasks (SPEC 10, issue 26): `tq wait`, `tq cancel` and
// `tq retry` take --state, --queue, --label and --user instead of ids, and the daemon resolves
// them in one request.
#include <doctest/doctest.h>

#include <string>

#include "support/skip.h"
#include "support/temp_user.h"
#include "support/test_daemon.h"

using namespace tqtest;

namespace {

// A task that runs until `gate` exists, then exits with `code`.
std::vector<std::string> GatedLabelled(const std::string& gate, int code,
                                       std::vector<std::string> flags = {}) {
  flags.insert(flags.end(), {"--", "sh", "-c",
                             "while [ ! -e " + Quoted(gate) + " ]; do sleep 0.05; done; exit " +
                                 std::to_string(code)});
  return flags;
}

}  // namespace

TEST_CASE("tq wait --label waits for every task with the label, oldest first for the exit code") {
  TestDaemon d("max_running = 4\n");
  TQ_LOG_ON_FAILURE(d);
  const std::string gate = d.dir() + "/gate";
  const std::string first = Submit(d, GatedLabelled(gate, 0, {"--label", "batch"}));
  const std::string failing = Submit(d, GatedLabelled(gate, 3, {"--label", "batch"}));
  const std::string later_failing = Submit(d, GatedLabelled(gate, 5, {"--label", "batch"}));
  const std::string other = Submit(d, GatedLabelled(gate + "-never", 0, {"--label", "other"}));

  auto wait = TqBackground(d, {"--json", "wait", "--label", "batch"});
  // The wait has the three tasks and not the fourth: it ends once the gate opens.
  REQUIRE(WaitState(d, first, "running"));
  WriteFile(gate, "");
  const RunResult r = wait->Finish();
  CHECK(r.exit_code == 3);  // the oldest failure's exit code
  const std::vector<nlohmann::json> lines = JsonLines(r.out);
  REQUIRE(lines.size() == 3);
  CHECK(std::to_string(lines[0]["id"].get<long long>()) == first);
  CHECK(std::to_string(lines[2]["id"].get<long long>()) == later_failing);
  CHECK(r.err.find("task " + failing + " failed (exit): exit 3") != std::string::npos);
  CHECK(TaskState(d, other) == "running");

  const RunResult none = Tq(d, {"wait", "--label", "no-such-label"});
  CHECK(none.exit_code == 0);
  CHECK(none.err == "tq: no task matches\n");
  CHECK(Tq(d, {"cancel", other}).exit_code == 0);
}

TEST_CASE("tq cancel --queue cancels the pending and running tasks of one queue only") {
  TestDaemon d("max_running = 4\n");
  TQ_LOG_ON_FAILURE(d);
  const std::string gate = d.dir() + "/gate";
  const std::string running = Submit(d, GatedLabelled(gate, 0, {"-q", "batch"}));
  const std::string pending = Submit(d, {"-q", "batch", "--delay", "1h", "--", "true"});
  const std::string done = Submit(d, {"-q", "batch", "--", "true"});
  const std::string elsewhere = Submit(d, {"-q", "keep", "--delay", "1h", "--", "true"});
  CHECK(Tq(d, {"wait", done}).exit_code == 0);
  REQUIRE(WaitState(d, running, "running"));

  const RunResult pending_only = Tq(d, {"cancel", "-q", "batch", "--state", "pending"});
  CHECK_MESSAGE(pending_only.exit_code == 0, pending_only.err);
  CHECK(pending_only.out == pending + " cancelled (cancelled)\n");
  CHECK(TaskState(d, running) == "running");

  const RunResult r = Tq(d, {"cancel", "--queue", "batch"});
  CHECK_MESSAGE(r.exit_code == 0, r.err);
  CHECK(r.out.find(running + " ") == 0);
  CHECK(TaskState(d, running) == "cancelled");
  CHECK(TaskState(d, done) == "succeeded");
  CHECK(TaskState(d, elsewhere) == "pending");

  const RunResult again = Tq(d, {"cancel", "--queue", "batch"});
  CHECK(again.exit_code == 0);
  CHECK(again.err == "tq: no task matches\n");
  const RunResult finished = Tq(d, {"cancel", "--state", "failed"});
  CHECK(finished.exit_code == 2);
  CHECK(finished.err.find("\"failed\" is not one of pending running") != std::string::npos);
}

TEST_CASE(
    "tq retry --label re-queues the failed tasks with the label, and cancelled ones by --state") {
  TestDaemon d;
  TQ_LOG_ON_FAILURE(d);
  const std::string bad = Submit(d, {"--label", "x", "--", "false"});
  const std::string ok = Submit(d, {"--label", "x", "--", "true"});
  const std::string cancelled = Submit(d, {"--label", "x", "--delay", "1h", "--", "true"});
  const std::string unlabelled = Submit(d, {"--", "false"});
  CHECK(Tq(d, {"cancel", cancelled}).exit_code == 0);
  CHECK(Tq(d, {"wait", ok}).exit_code == 0);
  CHECK(Tq(d, {"wait", bad}).exit_code == 1);
  CHECK(Tq(d, {"wait", unlabelled}).exit_code == 1);

  const RunResult r = Tq(d, {"retry", "--label", "x"});
  CHECK_MESSAGE(r.exit_code == 0, r.err);
  CHECK(r.out == bad + "\n");
  CHECK(Tq(d, {"wait", bad}).exit_code == 1);  // it ran again, and failed again
  CHECK(TaskJson(d, bad)["attempts"] == 2);
  CHECK(TaskState(d, unlabelled) == "failed");
  CHECK(TaskState(d, cancelled) == "cancelled");

  const RunResult both = Tq(d, {"retry", "--label", "x", "--state", "cancelled"});
  CHECK(both.out == cancelled + "\n");
  CHECK(Tq(d, {"wait", cancelled}).exit_code == 0);  // pending again at once: it ran
  const RunResult wrong = Tq(d, {"retry", "--state", "running"});
  CHECK(wrong.exit_code == 2);
  CHECK(wrong.err.find("\"running\" is not one of failed cancelled") != std::string::npos);
  // A filter nothing matches says so, as cancel does.
  const RunResult none = Tq(d, {"retry", "--label", "nosuch"});
  CHECK(none.exit_code == 0);
  CHECK(none.err == "tq: no task matches\n");
}

TEST_CASE(
    "a selector acts on the caller's own tasks, and an admin names another user with --user") {
  if (!CanMakeUsers()) TQ_SKIP("needs root and useradd");
  TempUser alice, bob;
  TestDaemon d;
  TQ_LOG_ON_FAILURE(d);
  const std::string alices = SubmitAs(d, alice, {"--label", "x", "--delay", "1h", "--", "true"});
  const std::string bobs = SubmitAs(d, bob, {"--label", "x", "--delay", "1h", "--", "true"});
  const std::string roots = Submit(d, {"--label", "x", "--delay", "1h", "--", "true"});

  const RunResult bob_cancels = TqAs(d, bob.run_as(), {"cancel", "--label", "x"});
  CHECK_MESSAGE(bob_cancels.exit_code == 0, bob_cancels.err);
  CHECK(TaskState(d, bobs) == "cancelled");
  CHECK(TaskState(d, alices) == "pending");
  CHECK(TaskState(d, roots) == "pending");
  const RunResult not_admin = TqAs(d, bob.run_as(), {"wait", "--user", alice.name()});
  CHECK(not_admin.exit_code == 5);
  CHECK(not_admin.err.find("only admins may wait for another user's tasks") != std::string::npos);

  CHECK(Tq(d, {"cancel", "--label", "x"}).exit_code == 0);  // root's own
  CHECK(TaskState(d, roots) == "cancelled");
  CHECK(TaskState(d, alices) == "pending");
  CHECK(Tq(d, {"cancel", "--label", "x", "-u", alice.name()}).exit_code == 0);
  CHECK(TaskState(d, alices) == "cancelled");
}
