// Dependencies (--after) and the pending time-to-live (SPEC 2, 6): a failed or cancelled task
// fails its whole chain of dependents at once with reason dependency-failed, a dependency on an
// unknown id is refused, and a task that cannot start within --pending-ttl fails as
// expired-pending.
#include <doctest/doctest.h>

#include <string>

#include "support/test_daemon.h"

using namespace tqtest;

namespace {
// A command that waits until `gate` exists, then exits with `code`.
std::vector<std::string> Gated(const std::string& gate, int code) {
  return {"--", "sh", "-c",
          "while [ ! -e '" + gate + "' ]; do sleep 0.05; done; exit " + std::to_string(code)};
}

// Checks that `id` failed because of a dependency, never ran, and that tq wait exits 125.
void CheckDependencyFailed(const TestDaemon& d, const std::string& id) {
  CAPTURE(id);
  CHECK(WaitState(d, id, "failed"));
  const nlohmann::json t = TaskJson(d, id);
  CHECK(t["reason"] == "dependency-failed");
  CHECK(t["attempts"] == 0);
  CHECK(t["attempt_log"].empty());
  CHECK(Tq(d, {"wait", id}).exit_code == 125);
}
}  // namespace

TEST_CASE("a dependent starts only after its dependency succeeded") {
  TestDaemon d;
  TQ_LOG_ON_FAILURE(d);
  const std::string gate = d.dir() + "/go", mark = d.dir() + "/b-ran";
  const std::string a = Submit(d, Gated(gate, 0));
  const std::string b = Submit(d, {"--after", a, "--", "sh", "-c", "echo ran > " + mark});
  REQUIRE(WaitState(d, a, "running"));
  CHECK(TaskState(d, b) == "pending");
  CHECK(TaskJson(d, b)["after"] == nlohmann::json::array({std::stoll(a)}));
  WriteFile(gate, "");
  CHECK(Tq(d, {"wait", a, b}).exit_code == 0);
  CHECK(ReadFile(mark) == "ran\n");
  CHECK(TimeMs(TaskJson(d, b)["attempt_log"][0]["started"]) >=
        TimeMs(TaskJson(d, a)["attempt_log"][0]["ended"]));
}

TEST_CASE("a dependent waits through its dependency's retries instead of failing") {
  TestDaemon d;
  TQ_LOG_ON_FAILURE(d);
  const std::string runs = d.dir() + "/runs";
  // Fails its first run, succeeds on the second.
  const std::string a =
      Submit(d, {"--retries", "2", "--backoff", "fixed", "--backoff-base", "100ms", "--no-jitter",
                 "--", "sh", "-c",
                 "n=$(( $(cat \"$1\" 2>/dev/null || echo 0) + 1 )); echo $n > \"$1\"; [ $n -ge 2 ]",
                 "sh", runs});
  const std::string b = Submit(d, {"--after", a, "--", "true"});
  CHECK(Tq(d, {"wait", a, b}).exit_code == 0);
  CHECK(TaskJson(d, a)["attempt_log"].size() == 2);
  const nlohmann::json tb = TaskJson(d, b);
  CHECK(tb["state"] == "succeeded");
  REQUIRE(tb["attempt_log"].size() == 1);
  CHECK(TimeMs(tb["attempt_log"][0]["started"]) >=
        TimeMs(TaskJson(d, a)["attempt_log"][1]["ended"]));
}

TEST_CASE("a chain of three fails at once when its head fails") {
  TestDaemon d;
  TQ_LOG_ON_FAILURE(d);
  const std::string gate = d.dir() + "/go";
  const std::string a = Submit(d, Gated(gate, 1));
  const std::string b = Submit(d, {"--after", a, "--", "true"});
  const std::string c = Submit(d, {"--after", b, "--", "true"});
  REQUIRE(WaitState(d, a, "running"));
  CHECK(TaskState(d, b) == "pending");
  CHECK(TaskState(d, c) == "pending");

  // tq wait on the end of the chain returns once the head's failure has spread to it.
  auto wait_c = TqBackground(d, {"wait", c});
  WriteFile(gate, "");
  // At once: the first time the head shows failed, the whole chain already has.
  REQUIRE(WaitState(d, a, "failed"));
  CHECK(TaskState(d, b) == "failed");
  CHECK(TaskState(d, c) == "failed");
  const RunResult w = wait_c->Finish();
  CHECK(w.exit_code == 125);
  CHECK(w.err.find(c) != std::string::npos);

  const nlohmann::json ta = TaskJson(d, a);
  CHECK(ta["reason"] == "exit");
  CheckDependencyFailed(d, b);
  CheckDependencyFailed(d, c);
  CHECK(Tq(d, {"wait", a}).exit_code == 1);
}

TEST_CASE("a cancelled dependency fails its chain with dependency-failed") {
  TestDaemon d;
  TQ_LOG_ON_FAILURE(d);
  const std::string a = Submit(d, {"--delay", "1h", "--", "true"});
  const std::string b = Submit(d, {"--after", a, "--", "true"});
  const std::string c = Submit(d, {"--after", b, "--", "true"});
  CHECK(TaskState(d, c) == "pending");
  const RunResult cancel = Tq(d, {"cancel", a});
  CHECK_MESSAGE(cancel.exit_code == 0, cancel.err);
  CHECK(TaskState(d, a) == "cancelled");
  CHECK(TaskState(d, c) == "failed");  // already, when tq cancel has returned
  CheckDependencyFailed(d, b);
  CheckDependencyFailed(d, c);

  // The same for a dependency cancelled while it runs.
  const std::string gate = d.dir() + "/never";
  const std::string r = Submit(d, Gated(gate, 0));
  const std::string s = Submit(d, {"--after", r, "--", "true"});
  REQUIRE(WaitState(d, r, "running"));
  CHECK(Tq(d, {"cancel", r}).exit_code == 0);
  CheckDependencyFailed(d, s);
}

TEST_CASE("--after a task that already failed or was cancelled fails the new task at once") {
  TestDaemon d;
  TQ_LOG_ON_FAILURE(d);
  const std::string failed = Submit(d, {"--", "false"});
  CHECK(Tq(d, {"wait", failed}).exit_code == 1);
  const std::string cancelled = Submit(d, {"--delay", "1h", "--", "true"});
  CHECK(Tq(d, {"cancel", cancelled}).exit_code == 0);
  const std::string ok = Submit(d, {"--", "true"});
  CHECK(Tq(d, {"wait", ok}).exit_code == 0);

  CheckDependencyFailed(d, Submit(d, {"--after", failed, "--", "true"}));
  CheckDependencyFailed(d, Submit(d, {"--after", cancelled, "--", "true"}));
  // One failed dependency among good ones is enough.
  CheckDependencyFailed(d, Submit(d, {"--after", ok + "," + failed, "--", "true"}));
  // A succeeded dependency is satisfied.
  const std::string fine = Submit(d, {"--after", ok, "--", "true"});
  CHECK(Tq(d, {"wait", fine}).exit_code == 0);
}

TEST_CASE("--after an unknown id is refused with exit 4 and submits nothing") {
  TestDaemon d;
  TQ_LOG_ON_FAILURE(d);
  const std::string ok = Submit(d, {"--", "true"});
  const size_t before = ListTasks(d).size();
  const RunResult r = Tq(d, {"submit", "--after", "999999", "--", "true"});
  CHECK(r.exit_code == 4);
  CHECK(r.out == "");
  CHECK(r.err.find("999999") != std::string::npos);
  const RunResult mixed = Tq(d, {"submit", "--after", ok + ",999998", "--", "true"});
  CHECK(mixed.exit_code == 4);
  CHECK(mixed.out == "");
  CHECK(ListTasks(d).size() == before);
}

TEST_CASE("--pending-ttl fails a task whose queue is paused with expired-pending") {
  TestDaemon d("[queues.held]\n");
  TQ_LOG_ON_FAILURE(d);
  REQUIRE(Tq(d, {"queue", "pause", "held"}).exit_code == 0);
  const std::string id = Submit(d, {"--queue", "held", "--pending-ttl", "1s", "--", "true"});
  const std::string dependent = Submit(d, {"--after", id, "--", "true"});
  CHECK(Tq(d, {"wait", id}).exit_code == 125);
  const nlohmann::json t = TaskJson(d, id);
  CHECK(t["state"] == "failed");
  CHECK(t["reason"] == "expired-pending");
  CHECK(t["attempts"] == 0);
  CHECK(t["pending_ttl_ms"] == 1000);
  CheckDependencyFailed(d, dependent);

  // Resuming the queue later does not bring it back.
  REQUIRE(Tq(d, {"queue", "resume", "held"}).exit_code == 0);
  const std::string later = Submit(d, {"--queue", "held", "--", "true"});
  CHECK(Tq(d, {"wait", later}).exit_code == 0);
  CHECK(TaskState(d, id) == "failed");
}

TEST_CASE("--pending-ttl fails a task still waiting for its dependency") {
  TestDaemon d;
  TQ_LOG_ON_FAILURE(d);
  const std::string gate = d.dir() + "/go";
  const std::string a = Submit(d, Gated(gate, 0));
  const std::string b = Submit(d, {"--after", a, "--pending-ttl", "1s", "--", "true"});
  CHECK(Tq(d, {"wait", b}).exit_code == 125);
  const nlohmann::json t = TaskJson(d, b);
  CHECK(t["state"] == "failed");
  CHECK(t["reason"] == "expired-pending");
  CHECK(t["attempts"] == 0);
  CHECK(TaskState(d, a) == "running");  // the dependency is not affected
  WriteFile(gate, "");
  CHECK(Tq(d, {"wait", a}).exit_code == 0);
  CHECK(TaskState(d, b) == "failed");
}

TEST_CASE("--pending-ttl does not end a task that started and waits between retries") {
  TestDaemon d;
  TQ_LOG_ON_FAILURE(d);
  const std::string runs = d.dir() + "/runs";
  // The backoff is longer than the ttl: the retry waits past it, and still runs.
  const std::string id =
      Submit(d, {"--pending-ttl", "1s", "--retries", "1", "--backoff", "fixed", "--backoff-base",
                 "2s", "--no-jitter", "--", "sh", "-c",
                 "n=$(( $(cat \"$1\" 2>/dev/null || echo 0) + 1 )); echo $n > \"$1\"; [ $n -ge 2 ]",
                 "sh", runs});
  CHECK(Tq(d, {"wait", id}).exit_code == 0);
  const nlohmann::json t = TaskJson(d, id);
  CHECK(t["state"] == "succeeded");
  CHECK(t["attempt_log"].size() == 2);
}

TEST_CASE("--pending-ttl fails a task that never gets a slot under max_running") {
  TestDaemon d("max_running = 1\n");
  TQ_LOG_ON_FAILURE(d);
  const std::string gate = d.dir() + "/go";
  const std::string blocker = Submit(d, Gated(gate, 0));
  REQUIRE(WaitState(d, blocker, "running"));
  const std::string starved = Submit(d, {"--pending-ttl", "1s", "--", "true"});
  const std::string patient = Submit(d, {"--pending-ttl", "1h", "--", "true"});
  CHECK(Tq(d, {"wait", starved}).exit_code == 125);
  const nlohmann::json t = TaskJson(d, starved);
  CHECK(t["state"] == "failed");
  CHECK(t["reason"] == "expired-pending");
  CHECK(t["attempts"] == 0);
  CHECK(TaskState(d, blocker) == "running");
  CHECK(TaskState(d, patient) == "pending");

  // Once the slot is free, the task whose ttl has not run out starts.
  WriteFile(gate, "");
  CHECK(Tq(d, {"wait", blocker, patient}).exit_code == 0);
}

TEST_CASE("tq clean keeps a failed task that a remaining dependent waits for") {
  TestDaemon d;
  TQ_LOG_ON_FAILURE(d);
  const std::string tests = Submit(d, {"--", "false"});
  const std::string deploy = Submit(d, {"--after", tests, "--", "echo", "deployed"});
  CHECK(Tq(d, {"wait", deploy}).exit_code != 0);
  const RunResult alone = Tq(d, {"clean", tests});
  CHECK(alone.exit_code == 2);
  CHECK_MESSAGE(alone.err == "tq: task " + tests + " failed and task " + deploy +
                                 " waits for it (--after): without it, a retry of task " + deploy +
                                 " would run as if it had succeeded; clean both (tq clean " +
                                 tests + " " + deploy + "), or retry task " + tests + " first\n",
                alone.err);
  CHECK(TaskState(d, tests) == "failed");
  // The dependent still will not run while what it waits for failed.
  CHECK(Tq(d, {"retry", deploy}).exit_code != 0);
  CHECK(TaskState(d, deploy) == "failed");
  CHECK(Tq(d, {"logs", deploy}).out.empty());
  const RunResult both = Tq(d, {"clean", tests, deploy});
  CHECK_MESSAGE(both.exit_code == 0, both.err);
  CHECK(ListTasks(d).empty());
}
