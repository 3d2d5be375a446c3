// tq retry --succeeded (issue 48, as pueue restart): a succeeded or expired task runs again, from
// its first stage, keeping its earlier attempts; a plain retry of one still refuses, pointing at
// the flag; dependents still pending wait for the new run.
#include <doctest/doctest.h>

#include <string>

#include "support/skip.h"
#include "support/temp_user.h"
#include "support/test_daemon.h"

using namespace tqtest;

namespace {
// A shell command appending `word` to the file `log`.
std::string Append(const std::string& log, const std::string& word) {
  return "echo " + word + " >> " + Quoted(log);
}
}  // namespace

TEST_CASE("tq retry --succeeded runs a succeeded or expired task again, plain retry refuses") {
  // Expired after a second, purged only after an hour: the expired task stays for the test.
  TestDaemon d("success_retention = \"1s\"\npurge_after = \"1h\"\n");
  TQ_LOG_ON_FAILURE(d);
  const std::string log = d.dir() + "/log";
  const std::string id = Submit(d, {"--", "sh", "-c", Append(log, "ran")});
  CHECK(Tq(d, {"wait", id}).exit_code == 0);

  const RunResult plain = Tq(d, {"retry", id});
  CHECK(plain.exit_code == 1);
  CHECK(plain.out.empty());
  CHECK_MESSAGE(plain.err == "tq: task " + id +
                                 " was not re-queued: its state is succeeded, not failed or "
                                 "cancelled (tq retry --succeeded runs a succeeded or expired "
                                 "task again)\n",
                plain.err);
  REQUIRE(WaitState(d, id, "expired"));
  const RunResult expired = Tq(d, {"retry", id});
  CHECK(expired.exit_code == 1);
  CHECK_MESSAGE(expired.err.find("its state is expired, not failed or cancelled (tq retry "
                                 "--succeeded") != std::string::npos,
                expired.err);
  CHECK(FileLines(log).size() == 1);

  const RunResult again = Tq(d, {"retry", "--succeeded", id});
  CHECK_MESSAGE(again.exit_code == 0, again.err);
  CHECK(again.out == id + "\n");
  CHECK(Tq(d, {"wait", id}).exit_code == 0);
  CHECK(FileLines(log).size() == 2);
  nlohmann::json t = TaskJson(d, id);
  CHECK(t["state"] != "failed");
  CHECK(t["attempt_log"].size() == 2);

  // Succeeded (not yet expired) runs again too, by id or by a filter naming the state.
  REQUIRE(TaskState(d, id) == "succeeded");
  const RunResult by_filter = Tq(d, {"retry", "--succeeded", "--state", "succeeded"});
  CHECK_MESSAGE(by_filter.exit_code == 0, by_filter.err);
  CHECK(by_filter.out == id + "\n");
  CHECK(Tq(d, {"wait", id}).exit_code == 0);
  CHECK(FileLines(log).size() == 3);

  // Without the flag a filter cannot name succeeded tasks; the flag alone names no task.
  CHECK(Tq(d, {"retry", "--state", "succeeded"}).exit_code == 2);
  const RunResult bare = Tq(d, {"retry", "--succeeded"});
  CHECK(bare.exit_code == 2);
  CHECK(bare.err.find("retry needs task ids") != std::string::npos);

  // A task still running is not re-queued, and the refusal says what --succeeded takes.
  const std::string gate = d.dir() + "/gate";
  const std::string running =
      Submit(d, {"--", "sh", "-c", "while [ ! -e " + Quoted(gate) + " ]; do sleep 0.05; done"});
  REQUIRE(WaitState(d, running, "running"));
  const RunResult busy = Tq(d, {"retry", "--succeeded", running});
  CHECK(busy.exit_code == 1);
  CHECK_MESSAGE(busy.err.find("its state is running, not failed, cancelled, succeeded or "
                              "expired\n") != std::string::npos,
                busy.err);
  WriteFile(gate, "");
  CHECK(Tq(d, {"wait", running}).exit_code == 0);
}

TEST_CASE("tq retry --succeeded of a task with stages runs every stage again, or from --from") {
  TestDaemon d;
  TQ_LOG_ON_FAILURE(d);
  const std::string log = d.dir() + "/log";
  const std::string id = Submit(
      d, {"--stage", "one", "--", "sh", "-c", Append(log, "one"), "--stage", "two", "--", "sh",
          "-c", Append(log, "two"), "--stage", "three", "--", "sh", "-c", Append(log, "three")});
  CHECK(Tq(d, {"wait", id}).exit_code == 0);
  REQUIRE(Tq(d, {"retry", "--succeeded", id}).exit_code == 0);
  CHECK(Tq(d, {"wait", id}).exit_code == 0);
  REQUIRE(Tq(d, {"retry", "--succeeded", id, "--from", "two"}).exit_code == 0);
  CHECK(Tq(d, {"wait", id}).exit_code == 0);
  CHECK(FileLines(log) ==
        std::vector<std::string>{"one", "two", "three", "one", "two", "three", "two", "three"});
  CHECK(TaskState(d, id) == "succeeded");
}

TEST_CASE("a dependent still pending waits for the new run of a task retried with --succeeded") {
  TestDaemon d("max_running = 4\n");
  TQ_LOG_ON_FAILURE(d);
  const std::string dep = Submit(d, {"-q", "first", "--", "true"});
  CHECK(Tq(d, {"wait", dep}).exit_code == 0);
  REQUIRE(Tq(d, {"queue", "pause", "first"}).exit_code == 0);
  REQUIRE(Tq(d, {"queue", "add", "second"}).exit_code == 0);
  REQUIRE(Tq(d, {"queue", "pause", "second"}).exit_code == 0);
  // Satisfied by the first run, it waits only for its paused queue.
  const std::string dependent = Submit(d, {"-q", "second", "--after", dep, "--", "true"});
  REQUIRE(Tq(d, {"retry", "--succeeded", dep}).exit_code == 0);
  CHECK(TaskState(d, dep) == "pending");

  // Its queue resumes while the dependency waits in its paused one: the dependent waits too.
  REQUIRE(Tq(d, {"queue", "resume", "second"}).exit_code == 0);
  CHECK_FALSE(WaitFor([&] { return TaskState(d, dependent) != "pending"; }, 1.0));
  REQUIRE(Tq(d, {"queue", "resume", "first"}).exit_code == 0);
  CHECK(Tq(d, {"wait", dependent}).exit_code == 0);
  const nlohmann::json first = TaskJson(d, dep), then = TaskJson(d, dependent);
  REQUIRE(first["attempt_log"].size() == 2);
  REQUIRE(then["attempt_log"].size() == 1);
  CHECK(TimeMs(then["attempt_log"][0]["started"]) >= TimeMs(first["attempt_log"][1]["ended"]));
}

TEST_CASE("another account cannot run a user's succeeded task again") {
  if (!CanMakeUsers()) TQ_SKIP("needs root and useradd");
  TempUser alice, mallory;
  TestDaemon d;
  TQ_LOG_ON_FAILURE(d);
  const std::string id = SubmitAs(d, alice, {"--", "true"});
  REQUIRE(Tq(d, {"wait", id}).exit_code == 0);
  const RunResult by_id = TqAs(d, mallory.run_as(), {"retry", "--succeeded", id});
  CHECK(by_id.exit_code == 4);
  const RunResult by_filter =
      TqAs(d, mallory.run_as(), {"retry", "--succeeded", "--user", alice.name()});
  CHECK(by_filter.exit_code == 5);
  const RunResult mine =
      TqAs(d, mallory.run_as(), {"retry", "--succeeded", "--state", "succeeded"});
  CHECK(mine.err == "tq: no task matches\n");
  const nlohmann::json t = TaskJson(d, id);
  CHECK(t["state"] == "succeeded");
  CHECK(t["attempts"] == 1);
}
