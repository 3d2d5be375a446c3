// Retries with backoff (SPEC 5) and timeouts (SPEC 6) through the real tq and tqd: a task that
// fails twice and then succeeds, exit codes that never or always retry, a queue's retry
// defaults from tqd.toml, and a timeout that has to KILL a task ignoring SIGTERM.
#include <doctest/doctest.h>

#include <string>

#include "support/test_daemon.h"

using namespace tqtest;

namespace {
// A shell body that counts its runs in the file $1 and succeeds from run $2 on.
const char* kCountRuns =
    R"(n=$(( $(cat "$1" 2>/dev/null || echo 0) + 1 )); echo $n > "$1"; [ $n -ge $2 ])";

// True when the task's attempt log holds exactly `n` attempts and the last one has ended.
bool EndedAttempts(const TestDaemon& d, const std::string& id, size_t n) {
  const nlohmann::json t = TaskJson(d, id);
  return t["attempt_log"].size() == n && !t["attempt_log"][n - 1]["ended"].is_null();
}
}  // namespace

TEST_CASE("a task failing twice and then succeeding ends succeeded after three attempts") {
  TestDaemon d;
  TQ_LOG_ON_FAILURE(d);
  const std::string runs = d.dir() + "/runs";
  const std::string id =
      Submit(d, {"--retries", "3", "--backoff", "fixed", "--backoff-base", "100ms", "--no-jitter",
                 "--", "sh", "-c", kCountRuns, "sh", runs, "3"});
  const RunResult wait = Tq(d, {"wait", id});
  CHECK_MESSAGE(wait.exit_code == 0, wait.err);

  const nlohmann::json t = TaskJson(d, id);
  CHECK(t["state"] == "succeeded");
  CHECK(t["reason"] == "exit");
  CHECK(t["exit_code"] == 0);
  CHECK(t["attempts"] == 3);
  const nlohmann::json& log = t["attempt_log"];
  REQUIRE(log.size() == 3);
  for (int i = 0; i < 3; ++i) {
    CAPTURE(i);
    CHECK(log[i]["number"] == i + 1);
    CHECK(log[i]["reason"] == "exit");
    CHECK(log[i]["exit_code"] == (i < 2 ? 1 : 0));
    CHECK_FALSE(log[i]["ended"].is_null());
  }
  // Each retry starts only after the attempt before it ended, plus the fixed 100 ms backoff.
  CHECK(TimeMs(log[1]["started"]) >= TimeMs(log[0]["ended"]) + 100);
  CHECK(TimeMs(log[2]["started"]) >= TimeMs(log[1]["ended"]) + 100);
  CHECK(ReadFile(runs) == "3\n");
}

TEST_CASE("between attempts a task is pending with not_before set to the end plus the backoff") {
  TestDaemon d;
  TQ_LOG_ON_FAILURE(d);
  // A backoff of an hour: the pending state between attempts cannot be missed by slow polling.
  const std::string id = Submit(d, {"--retries", "1", "--backoff", "fixed", "--backoff-base", "1h",
                                    "--no-jitter", "--", "sh", "-c", "exit 1"});
  REQUIRE(WaitFor([&] { return EndedAttempts(d, id, 1); }));
  const nlohmann::json t = TaskJson(d, id);
  CHECK(t["state"] == "pending");  // never failed while a retry is left
  CHECK(t["reason"].is_null());
  CHECK(t["attempts"] == 1);
  REQUIRE(t["attempt_log"].size() == 1);
  CHECK(t["attempt_log"][0]["exit_code"] == 1);
  REQUIRE_FALSE(t["not_before"].is_null());
  CHECK(TimeMs(t["not_before"]) >= TimeMs(t["attempt_log"][0]["ended"]) + 3600 * 1000);

  const RunResult status = Tq(d, {"status", id});
  CHECK(status.exit_code == 0);
  CHECK_MESSAGE(status.out.find("retry 1/1 at") != std::string::npos, status.out);

  // Cancelling it while it waits for its retry ends it for good.
  const RunResult cancel = Tq(d, {"cancel", id});
  CHECK_MESSAGE(cancel.exit_code == 0, cancel.err);
  const nlohmann::json after = TaskJson(d, id);
  CHECK(after["state"] == "cancelled");
  CHECK(after["attempt_log"].size() == 1);
}

TEST_CASE("--no-retry-on-exit stops at the first attempt") {
  TestDaemon d;
  TQ_LOG_ON_FAILURE(d);
  const std::string id =
      Submit(d, {"--retries", "3", "--backoff", "fixed", "--backoff-base", "100ms", "--no-jitter",
                 "--no-retry-on-exit", "2", "--", "sh", "-c", "exit 2"});
  CHECK(Tq(d, {"wait", id}).exit_code == 2);
  const nlohmann::json t = TaskJson(d, id);
  CHECK(t["state"] == "failed");
  CHECK(t["reason"] == "exit");
  CHECK(t["exit_code"] == 2);
  CHECK(t["attempts"] == 1);
  CHECK(t["attempt_log"].size() == 1);

  // Another exit code is still retried under the same options.
  const std::string other =
      Submit(d, {"--retries", "1", "--backoff", "fixed", "--backoff-base", "100ms", "--no-jitter",
                 "--no-retry-on-exit", "2", "--", "sh", "-c", "exit 4"});
  CHECK(Tq(d, {"wait", other}).exit_code == 4);
  CHECK(TaskJson(d, other)["attempt_log"].size() == 2);
}

TEST_CASE("--retry-on-exit retries only the listed exit codes") {
  TestDaemon d;
  TQ_LOG_ON_FAILURE(d);
  const std::vector<std::string> flags = {
      "--retries", "2",           "--backoff",       "fixed", "--backoff-base",
      "100ms",     "--no-jitter", "--retry-on-exit", "75"};
  auto submit = [&](const std::string& code) {
    std::vector<std::string> args = flags;
    args.insert(args.end(), {"--", "sh", "-c", "exit " + code});
    return Submit(d, args);
  };
  const std::string three = submit("3");
  const std::string tempfail = submit("75");
  CHECK(Tq(d, {"wait", three}).exit_code == 3);
  CHECK(Tq(d, {"wait", tempfail}).exit_code == 75);

  const nlohmann::json t3 = TaskJson(d, three);
  CHECK(t3["state"] == "failed");
  CHECK(t3["attempts"] == 1);
  CHECK(t3["attempt_log"].size() == 1);

  const nlohmann::json t75 = TaskJson(d, tempfail);
  CHECK(t75["state"] == "failed");
  CHECK(t75["attempts"] == 3);  // the first attempt and both retries
  REQUIRE(t75["attempt_log"].size() == 3);
  for (const auto& a : t75["attempt_log"]) CHECK(a["exit_code"] == 75);

  // A task that exits 75 once and then succeeds.
  const std::string runs = d.dir() + "/runs";
  std::vector<std::string> args = flags;
  args.insert(args.end(),
              {"--", "sh", "-c", std::string(kCountRuns) + " || exit 75", "sh", runs, "2"});
  const std::string flaky = Submit(d, args);
  CHECK(Tq(d, {"wait", flaky}).exit_code == 0);
  const nlohmann::json tf = TaskJson(d, flaky);
  CHECK(tf["state"] == "succeeded");
  REQUIRE(tf["attempt_log"].size() == 2);
  CHECK(tf["attempt_log"][0]["exit_code"] == 75);
  CHECK(tf["attempt_log"][1]["exit_code"] == 0);
}

TEST_CASE("a queue's retry defaults from tqd.toml apply unless a submit option overrides them") {
  TestDaemon d(
      "[queues.flaky]\nretries = 2\nbackoff = \"fixed\"\nbackoff_base = \"100ms\"\n"
      "jitter = false\n");
  TQ_LOG_ON_FAILURE(d);
  const std::string defaults = Submit(d, {"--queue", "flaky", "--", "false"});
  const std::string overridden = Submit(d, {"--queue", "flaky", "--retries", "0", "--", "false"});
  const std::string other_queue = Submit(d, {"--", "false"});
  CHECK(Tq(d, {"wait", defaults}).exit_code == 1);
  CHECK(Tq(d, {"wait", overridden}).exit_code == 1);
  CHECK(Tq(d, {"wait", other_queue}).exit_code == 1);

  const nlohmann::json t = TaskJson(d, defaults);
  CHECK(t["state"] == "failed");
  CHECK(t["attempts"] == 3);
  CHECK(t["attempt_log"].size() == 3);
  CHECK(t["retry"]["retries"] == 2);
  CHECK(t["retry"]["backoff"] == "fixed");
  CHECK(t["retry"]["backoff_base_ms"] == 100);
  CHECK(t["retry"]["jitter"] == false);

  const nlohmann::json o = TaskJson(d, overridden);
  CHECK(o["state"] == "failed");
  CHECK(o["attempts"] == 1);
  CHECK(o["attempt_log"].size() == 1);
  CHECK(o["retry"]["retries"] == 0);
  CHECK(o["retry"]["backoff"] == "fixed");  // only the option given replaces a default

  const nlohmann::json q = TaskJson(d, other_queue);  // the default queue has no retries
  CHECK(q["attempts"] == 1);
  CHECK(q["retry"]["retries"] == 0);
}

TEST_CASE("a timeout kills a task that ignores SIGTERM: reason timeout and tq wait exits 124") {
  TestDaemon d("kill_grace = \"1s\"\n");
  TQ_LOG_ON_FAILURE(d);
  const std::string pidfile = d.dir() + "/task.pid";
  const std::string body = "trap '' TERM; echo $$ > " + pidfile + "; while :; do sleep 0.1; done";
  const std::string id = Submit(d, {"--timeout", "1s", "--", "sh", "-c", body});
  CHECK(Tq(d, {"wait", id}).exit_code == 124);
  const nlohmann::json t = TaskJson(d, id);
  CHECK(t["state"] == "failed");
  CHECK(t["reason"] == "timeout");
  CHECK(t["timeout_ms"] == 1000);
  REQUIRE(t["attempt_log"].size() == 1);
  CHECK(t["attempt_log"][0]["reason"] == "timeout");
  CHECK(t["attempt_log"][0]["signal"] == 9);  // TERM was ignored: KILL ended it
  const std::string pid = ReadFile(pidfile);
  REQUIRE(!pid.empty());
  CHECK(WaitFor([&] { return ProcessGone(static_cast<pid_t>(std::stol(pid))); }));
}

TEST_CASE("a timed-out attempt is retried, and every attempt times out") {
  TestDaemon d("kill_grace = \"1s\"\n");
  TQ_LOG_ON_FAILURE(d);
  const std::string id =
      Submit(d, {"--timeout", "1s", "--retries", "1", "--backoff", "fixed", "--backoff-base",
                 "100ms", "--", "sh", "-c", "trap '' TERM; while :; do sleep 0.1; done"});
  CHECK(Tq(d, {"wait", id}).exit_code == 124);
  const nlohmann::json t = TaskJson(d, id);
  CHECK(t["state"] == "failed");
  CHECK(t["reason"] == "timeout");
  CHECK(t["attempts"] == 2);
  REQUIRE(t["attempt_log"].size() == 2);
  for (const auto& a : t["attempt_log"]) {
    CHECK(a["reason"] == "timeout");
    CHECK(a["signal"] == 9);
  }
}
