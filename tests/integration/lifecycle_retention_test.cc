// Retention and purge (SPEC 2, 6) with tiny settings: a succeeded task becomes expired after
// success_retention and still satisfies --after; failed, cancelled and expired tasks are purged
// after purge_after, rows and output files both.
#include <doctest/doctest.h>

#include <filesystem>
#include <string>

#include "support/test_daemon.h"

using namespace tqtest;

namespace {

// A task body that records whether its own status record exists while it runs.
std::vector<std::string> RecordOwnDir(const TestDaemon& d, const std::string& mark, int code) {
  return {
      "--",
      "sh",
      "-c",
      "if [ -f \"$1/attempts/$((TQ_TASK_ID / 1000))/$TQ_TASK_ID.1.status\" ]; then echo present "
      "> \"$2\"; fi; echo output; exit " +
          std::to_string(code),
      "sh",
      d.state_dir(),
      mark};
}

// `tq status ID` exits 4: the task is gone.
bool Purged(const TestDaemon& d, const std::string& id) {
  return Tq(d, {"status", id}).exit_code == 4;
}
}  // namespace

TEST_CASE("a succeeded task expires after success_retention and still satisfies --after") {
  // purge_after is long here, so the expired task stays for the whole test.
  TestDaemon d("success_retention = \"1s\"\npurge_after = \"1h\"\n");
  TQ_LOG_ON_FAILURE(d);
  const std::string ok = Submit(d, {"--", "sh", "-c", "echo kept"});
  CHECK(Tq(d, {"wait", ok}).exit_code == 0);
  REQUIRE(WaitState(d, ok, "expired"));
  const nlohmann::json t = TaskJson(d, ok);
  CHECK(t["reason"] == "exit");
  CHECK(t["exit_code"] == 0);
  CHECK(t["attempt_log"].size() == 1);
  CHECK(Tq(d, {"wait", ok}).exit_code == 0);  // expired after succeeding is a success

  std::vector<std::string> expired_ids;
  for (const auto& j : ListTasks(d, {"--state", "expired"}))
    expired_ids.push_back(std::to_string(j["id"].get<long long>()));
  CHECK(expired_ids == std::vector<std::string>{ok});

  // A dependency that expired is satisfied: the dependent runs.
  const std::string mark = d.dir() + "/dependent-ran";
  const std::string dep = Submit(d, {"--after", ok, "--", "sh", "-c", "echo ran > " + mark});
  CHECK(Tq(d, {"wait", dep}).exit_code == 0);
  CHECK(ReadFile(mark) == "ran\n");
  CHECK(TaskState(d, ok) == "expired");

  // A failed task never expires; it is only purged (after the hour here).
  const std::string bad = Submit(d, {"--", "false"});
  CHECK(Tq(d, {"wait", bad}).exit_code == 1);
  CHECK(TaskState(d, bad) == "failed");
}

TEST_CASE("succeeded, failed and cancelled tasks are purged with their files after purge_after") {
  TestDaemon d;
  TQ_LOG_ON_FAILURE(d);
  const std::string ok_mark = d.dir() + "/ok-dir", bad_mark = d.dir() + "/bad-dir";
  const std::string ok = Submit(d, RecordOwnDir(d, ok_mark, 0));
  const std::string bad = Submit(d, RecordOwnDir(d, bad_mark, 3));
  const std::string cancelled = Submit(d, {"--delay", "1h", "--", "true"});
  CHECK(Tq(d, {"cancel", cancelled}).exit_code == 0);
  const RunResult wait = Tq(d, {"wait", ok, bad});
  CHECK(wait.exit_code == 3);
  // Each task's files existed while it ran (its status record, its output).
  CHECK(ReadFile(ok_mark) == "present\n");
  CHECK(ReadFile(bad_mark) == "present\n");
  // Retention short only now, so that on a slow machine nothing is purged before it was waited for.
  d.WriteConfig("success_retention = \"1s\"\npurge_after = \"2s\"\n");
  REQUIRE(Tq(d, {"reload"}).exit_code == 0);

  // Until it is purged, the succeeded task is only ever succeeded or expired.
  for (const std::string& id : {ok, bad, cancelled}) {
    CAPTURE(id);
    CHECK(WaitFor([&] {
      const RunResult r = Tq(d, {"status", id, "--json"});
      if (r.exit_code == 4) return true;
      REQUIRE_MESSAGE(r.exit_code == 0, r.err);
      const std::string state = nlohmann::json::parse(r.out).value("state", "");
      if (id == ok) {
        CHECK((state == "succeeded" || state == "expired"));
      } else {
        CHECK(state == (id == bad ? "failed" : "cancelled"));
      }
      return false;
    }));
    CHECK(Purged(d, id));
    CHECK(Tq(d, {"wait", id}).exit_code == 4);
    CHECK(Tq(d, {"logs", id}).exit_code == 4);
    CHECK(WaitFor([&] { return !std::filesystem::exists(RecordPath(d, id)); }));
    CHECK(WaitFor(
        [&] { return !std::filesystem::exists(TaskFilesDir(d, id) + "/" + id + ".1.out"); }));
  }
  CHECK(ListTasks(d).empty());

  // The daemon goes on working after purging.
  const std::string next = Submit(d, {"--", "true"});
  CHECK(Tq(d, {"wait", next}).exit_code == 0);
}

TEST_CASE("a task waiting for a dependency that succeeded and was purged still runs") {
  TestDaemon d("success_retention = \"1s\"\npurge_after = \"2s\"\n[queues.held]\n");
  TQ_LOG_ON_FAILURE(d);
  REQUIRE(Tq(d, {"queue", "pause", "held"}).exit_code == 0);
  const std::string a = Submit(d, {"--", "true"});
  const std::string b = Submit(d, {"--after", a, "--queue", "held", "--", "true"});
  CHECK(Tq(d, {"wait", a}).exit_code == 0);
  REQUIRE(WaitFor([&] { return Purged(d, a); }));
  CHECK(TaskState(d, b) == "pending");
  REQUIRE(Tq(d, {"queue", "resume", "held"}).exit_code == 0);
  CHECK(Tq(d, {"wait", b}).exit_code == 0);
}
