// tq clean (SPEC 10, issue 26): finished tasks and their output go now, by ids or by filters;
// pending and running tasks are never touched, and a user cleans only their own tasks unless an
// admin names another with --user.
#include <unistd.h>

#include <doctest/doctest.h>

#include <string>

#include "support/skip.h"
#include "support/temp_user.h"
#include "support/test_daemon.h"

using namespace tqtest;

namespace {

// `tq status ID` exits 4: the task is gone.
bool Gone(const TestDaemon& d, const std::string& id) {
  return Tq(d, {"status", id}).exit_code == 4;
}

// The output file of attempt 1 of task `id`.
std::string OutPath(const TestDaemon& d, const std::string& id) {
  return TaskFilesDir(d, id) + "/" + id + ".1.out";
}

// `tq clean ARGS --json`'s answer, REQUIREd to succeed.
nlohmann::json Clean(const TestDaemon& d, std::vector<std::string> args) {
  args.insert(args.begin(), {"--json", "clean"});
  const RunResult r = Tq(d, args);
  REQUIRE_MESSAGE(r.exit_code == 0, r.err);
  return nlohmann::json::parse(r.out);
}

}  // namespace

TEST_CASE("tq clean removes the caller's succeeded tasks and their output, nothing else") {
  TestDaemon d;
  TQ_LOG_ON_FAILURE(d);
  const std::string gate = d.dir() + "/gate";
  const std::string ok1 = Submit(d, {"--", "sh", "-c", "echo first"});
  const std::string ok2 = Submit(d, {"--", "sh", "-c", "echo second; echo err >&2"});
  const std::string bad = Submit(d, {"--", "sh", "-c", "echo failing; exit 3"});
  CHECK(Tq(d, {"wait", ok1, ok2}).exit_code == 0);
  CHECK(Tq(d, {"wait", bad}).exit_code == 3);
  const std::string later = Submit(d, {"--delay", "1h", "--", "true"});
  const std::string running =
      Submit(d, {"--", "sh", "-c", "while [ ! -e " + Quoted(gate) + " ]; do sleep 0.05; done"});
  REQUIRE(WaitState(d, running, "running"));
  REQUIRE(ReadFile(OutPath(d, ok1)) == "first\n");

  const RunResult human = Tq(d, {"clean"});
  CHECK_MESSAGE(human.exit_code == 0, human.err);
  CHECK(human.out == "removed 2 tasks, 17 B of output\n");  // "first\n" + "second\n" + "err\n"
  CHECK(Gone(d, ok1));
  CHECK(Gone(d, ok2));
  // Files go off tqd's loop, soon after the answer.
  CHECK(WaitFor([&] { return access(OutPath(d, ok1).c_str(), F_OK) != 0; }));
  CHECK(WaitFor([&] { return access(OutPath(d, ok2).c_str(), F_OK) != 0; }));
  CHECK(TaskState(d, bad) == "failed");
  CHECK(TaskState(d, later) == "pending");
  CHECK(TaskState(d, running) == "running");
  CHECK(Clean(d, {}) == nlohmann::json{{"removed", 0}, {"output_bytes", 0}});  // nothing left

  // By id: all finished, or nothing is removed.
  const RunResult refused = Tq(d, {"clean", bad, running});
  CHECK(refused.exit_code == 2);
  CHECK(refused.err.find("task " + running + " is running") != std::string::npos);
  CHECK(TaskState(d, bad) == "failed");
  CHECK(Tq(d, {"clean", "999999"}).exit_code == 4);
  CHECK(Clean(d, {bad}) == nlohmann::json{{"removed", 1}, {"output_bytes", 8}});
  CHECK(Gone(d, bad));

  WriteFile(gate, "");
  CHECK(Tq(d, {"wait", running}).exit_code == 0);
  CHECK(Clean(d, {"--state", "all-finished"})["removed"] == 1);
  CHECK(TaskState(d, later) == "pending");
}

TEST_CASE("tq clean picks by state, queue, label and age") {
  TestDaemon d;
  TQ_LOG_ON_FAILURE(d);
  const std::string a_ok = Submit(d, {"-q", "a", "--", "true"});
  const std::string a_bad = Submit(d, {"-q", "a", "--", "false"});
  const std::string b_ok = Submit(d, {"-q", "b", "--label", "nightly", "--", "true"});
  const std::string b_cancelled = Submit(d, {"-q", "b", "--delay", "1h", "--", "true"});
  CHECK(Tq(d, {"cancel", b_cancelled}).exit_code == 0);
  CHECK(Tq(d, {"wait", a_ok, b_ok}).exit_code == 0);
  CHECK(Tq(d, {"wait", a_bad}).exit_code == 1);

  // None of them finished an hour ago.
  CHECK(Clean(d, {"--state", "all-finished", "--older-than", "1h"})["removed"] == 0);
  CHECK(Clean(d, {"--label", "nightly"})["removed"] == 1);
  CHECK(Gone(d, b_ok));
  CHECK(Clean(d, {"--queue", "a", "--state", "failed,cancelled"})["removed"] == 1);
  CHECK(Gone(d, a_bad));
  CHECK(TaskState(d, a_ok) == "succeeded");
  CHECK(TaskState(d, b_cancelled) == "cancelled");
  CHECK(Clean(d, {"--state", "cancelled", "--state", "succeeded"})["removed"] == 2);
  CHECK(ListTasks(d).empty());

  const RunResult bad_state = Tq(d, {"clean", "--state", "running"});
  CHECK(bad_state.exit_code == 2);
  CHECK(bad_state.err.find("\"running\" is not one of succeeded failed cancelled expired "
                           "all-finished") != std::string::npos);
  const RunResult bad_age = Tq(d, {"clean", "--older-than", "2 days"});
  CHECK(bad_age.exit_code == 2);
  CHECK(bad_age.err.find("--older-than") != std::string::npos);
  const RunResult both = Tq(d, {"clean", "5", "--queue", "a"});
  CHECK(both.exit_code == 2);
  CHECK(both.err.find("not both") != std::string::npos);
}

TEST_CASE("a user cleans only their own tasks, and an admin cleans another's with --user") {
  if (!CanMakeUsers()) TQ_SKIP("needs root and useradd");
  TempUser alice, bob;
  TestDaemon d;
  TQ_LOG_ON_FAILURE(d);
  const std::string alices = SubmitAs(d, alice, {"--", "true"});
  const std::string bobs = SubmitAs(d, bob, {"--", "true"});
  const std::string roots = Submit(d, {"--", "true"});
  CHECK(Tq(d, {"wait", alices, bobs, roots}).exit_code == 0);

  const RunResult bob_cleans = TqAs(d, bob.run_as(), {"--json", "clean"});
  CHECK_MESSAGE(bob_cleans.exit_code == 0, bob_cleans.err);
  CHECK(nlohmann::json::parse(bob_cleans.out)["removed"] == 1);
  CHECK(Gone(d, bobs));
  CHECK(TaskState(d, alices) == "succeeded");
  const RunResult not_his = TqAs(d, bob.run_as(), {"clean", alices});
  CHECK(not_his.exit_code == 4);
  const RunResult not_admin = TqAs(d, bob.run_as(), {"clean", "--user", alice.name()});
  CHECK(not_admin.exit_code == 5);
  CHECK(not_admin.err.find("only admins may clean another user's tasks") != std::string::npos);

  // Root's own clean leaves alice's task; --user names hers.
  CHECK(Clean(d, {})["removed"] == 1);
  CHECK(Gone(d, roots));
  CHECK(TaskState(d, alices) == "succeeded");
  CHECK(Clean(d, {"--user", alice.name()})["removed"] == 1);
  CHECK(Gone(d, alices));
  CHECK(Tq(d, {"clean", "--user", "no-such-user-here"}).exit_code == 4);
}
