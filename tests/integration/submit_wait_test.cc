// The basic round trip: submit prints only an id, wait returns the result, status shows it with
// the field names of SPEC 2; dependencies (--after) and delayed starts (--delay).
#include <chrono>

#include <doctest/doctest.h>

#include "core/model/wall_time.h"
#include "support/test_daemon.h"

using namespace tqtest;

namespace {
// Milliseconds since the epoch of an RFC 3339 time from `--json` output.
int64_t WallMsOf(const nlohmann::json& t) {
  REQUIRE(t.is_string());
  auto ms = tq::ParseRfc3339(t.get<std::string>());
  REQUIRE(ms.ok());
  return *ms;
}
}  // namespace

TEST_CASE("submit prints only the id and wait exits 0 and status shows the SPEC 2 fields") {
  TestDaemon d;
  TQ_LOG_ON_FAILURE(d);
  const RunResult submit = Tq(d, {"submit", "--", "true"});
  REQUIRE(submit.exit_code == 0);
  CHECK(submit.err == "");
  const std::string id = submit.out.substr(0, submit.out.size() - 1);
  REQUIRE(submit.out == id + "\n");
  REQUIRE(!id.empty());
  CHECK(id.find_first_not_of("0123456789") == std::string::npos);

  const RunResult wait = Tq(d, {"wait", id});
  CHECK(wait.exit_code == 0);
  CHECK(wait.out == "");  // SPEC 10: stdout stays empty

  const nlohmann::json t = TaskJson(d, id);
  for (const char* field : {"id", "state", "reason", "exit_code", "priority", "queue", "attempts"})
    CHECK_MESSAGE(t.contains(field), "missing field " << field << " in " << t.dump());
  CHECK(t["id"] == std::stoll(id));
  CHECK(t["state"] == "succeeded");
  CHECK(t["reason"] == "exit");
  CHECK(t["exit_code"] == 0);
  CHECK(t["attempts"] == 1);
  CHECK(t["priority"] == 3);
  CHECK(t["queue"] == "default");
  REQUIRE(t["attempt_log"].size() == 1);
  CHECK(t["attempt_log"][0]["reason"] == "exit");
  CHECK(t["attempt_log"][0]["exit_code"] == 0);
}

TEST_CASE("ids increase and each submit is its own task") {
  TestDaemon d;
  TQ_LOG_ON_FAILURE(d);
  const std::string a = Submit(d, {"--", "true"});
  const std::string b = Submit(d, {"--", "true"});
  CHECK(std::stoll(b) > std::stoll(a));
  CHECK(Tq(d, {"wait", a, b}).exit_code == 0);
}

TEST_CASE("--queue and --priority are kept") {
  TestDaemon d;
  TQ_LOG_ON_FAILURE(d);
  const std::string id = Submit(d, {"--queue", "batch", "--priority", "1", "--", "true"});
  CHECK(Tq(d, {"wait", id}).exit_code == 0);
  const nlohmann::json t = TaskJson(d, id);
  CHECK(t["queue"] == "batch");
  CHECK(t["priority"] == 1);
}

TEST_CASE("--after: a task starts only after its dependency succeeded") {
  TestDaemon d;
  TQ_LOG_ON_FAILURE(d);
  const std::string marker = d.dir() + "/a.done";
  const std::string a = Submit(d, {"--", "sh", "-c", "sleep 0.3; echo done > '" + marker + "'"});
  const std::string b = Submit(d, {"--after", a, "--", "test", "-e", marker});
  CHECK(Tq(d, {"wait", b}).exit_code == 0);
  const nlohmann::json ta = TaskJson(d, a);
  const nlohmann::json tb = TaskJson(d, b);
  CHECK(ta["state"] == "succeeded");
  CHECK(tb["state"] == "succeeded");
  REQUIRE(ta["attempt_log"].size() == 1);
  REQUIRE(tb["attempt_log"].size() == 1);
  CHECK(WallMsOf(tb["attempt_log"][0]["started"]) >= WallMsOf(ta["attempt_log"][0]["ended"]));
}

TEST_CASE("--delay: the task is not started before its time and runs afterwards") {
  TestDaemon d;
  TQ_LOG_ON_FAILURE(d);
  const auto before = std::chrono::steady_clock::now();
  const std::string id = Submit(d, {"--delay", "1s", "--", "true"});
  const std::string state = TaskState(d, id);
  // Only meaningful while the second has not passed yet; a very slow machine skips it.
  if (std::chrono::steady_clock::now() - before < std::chrono::milliseconds(900))
    CHECK(state == "pending");
  REQUIRE(WaitState(d, id, "succeeded"));
  const nlohmann::json t = TaskJson(d, id);
  REQUIRE(t["attempt_log"].size() == 1);
  CHECK(WallMsOf(t["attempt_log"][0]["started"]) >= WallMsOf(t["not_before"]));
}
