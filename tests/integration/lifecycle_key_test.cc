// Submitting with an idempotency key and a version (SPEC 3), row by row of its table, and two
// tq processes racing with the same key and version always ending with exactly one task.
#include <doctest/doctest.h>

#include <map>
#include <memory>
#include <string>

#include "support/sanitized.h"
#include "support/test_daemon.h"

using namespace tqtest;

namespace {
// A command that writes its pid to `pidfile` and waits until `gate` exists.
std::vector<std::string> GatedCmd(const std::string& gate, const std::string& pidfile) {
  return {"--", "sh", "-c",
          "echo $$ > '" + pidfile + "'; while [ ! -e '" + gate + "' ]; do sleep 0.05; done"};
}

std::vector<std::string> Keyed(const std::string& key, int version,
                               const std::vector<std::string>& rest) {
  std::vector<std::string> args = {"--key", key, "--version", std::to_string(version)};
  args.insert(args.end(), rest.begin(), rest.end());
  return args;
}

// The ids of every task carrying `key`, from tq list.
std::vector<long long> IdsWithKey(const TestDaemon& d, const std::string& key) {
  std::vector<long long> ids;
  for (const auto& t : ListTasks(d))
    if (t["key"] == key) ids.push_back(t["id"].get<long long>());
  return ids;
}

}  // namespace

TEST_CASE("the same key and version while the first runs, or after it succeeded, is that task") {
  TestDaemon d;
  TQ_LOG_ON_FAILURE(d);
  const std::string gate = d.dir() + "/go", pidfile = d.dir() + "/pid";
  const std::string id = Submit(d, Keyed("build", 4, GatedCmd(gate, pidfile)));
  REQUIRE(WaitState(d, id, "running"));
  // A different command does not matter: the key and version name the task.
  CHECK(Submit(d, Keyed("build", 4, {"--", "sh", "-c", "exit 9"})) == id);
  CHECK(Submit(d, Keyed("build", 4, {"--", "true"})) == id);
  CHECK(TaskState(d, id) == "running");
  CHECK(IdsWithKey(d, "build") == std::vector<long long>{std::stoll(id)});

  WriteFile(gate, "");
  CHECK(Tq(d, {"wait", id}).exit_code == 0);
  CHECK(Submit(d, Keyed("build", 4, {"--", "sh", "-c", "exit 9"})) == id);
  const nlohmann::json t = TaskJson(d, id);
  CHECK(t["state"] == "succeeded");
  CHECK(t["attempts"] == 1);  // it did not run again
  CHECK(t["key"] == "build");
  CHECK(t["version"] == 4);
  CHECK(IdsWithKey(d, "build") == std::vector<long long>{std::stoll(id)});

  // Keys are separate from each other: another key is another task.
  const std::string other = Submit(d, Keyed("build2", 4, {"--", "true"}));
  CHECK(other != id);
}

TEST_CASE("a lower version than the one stored is refused with exit 3 and the newer id") {
  TestDaemon d;
  TQ_LOG_ON_FAILURE(d);
  const std::string newer = Submit(d, Keyed("cfg", 5, {"--delay", "1h", "--", "true"}));
  const RunResult r = Tq(d, {"submit", "--key", "cfg", "--version", "3", "--", "true"});
  CHECK(r.exit_code == 3);
  CHECK(r.out == newer + "\n");
  CHECK(r.err.find(newer) != std::string::npos);
  CHECK(IdsWithKey(d, "cfg") == std::vector<long long>{std::stoll(newer)});
  CHECK(TaskState(d, newer) == "pending");

  // The same once the newer one has ended.
  const std::string done = Submit(d, Keyed("done", 2, {"--", "true"}));
  CHECK(Tq(d, {"wait", done}).exit_code == 0);
  const RunResult r2 = Tq(d, {"submit", "--key", "done", "--version", "1", "--", "true"});
  CHECK(r2.exit_code == 3);
  CHECK(r2.out == done + "\n");
}

TEST_CASE("a higher version cancels a lower pending one with reason superseded") {
  TestDaemon d("[queues.held]\n");
  TQ_LOG_ON_FAILURE(d);
  const std::string v1 = Submit(d, Keyed("job", 1, {"--delay", "1h", "--", "true"}));
  const std::string v2 = Submit(d, Keyed("job", 2, {"--", "true"}));
  CHECK(v2 != v1);
  const nlohmann::json old = TaskJson(d, v1);
  CHECK(old["state"] == "cancelled");
  CHECK(old["reason"] == "superseded");
  CHECK(old["attempts"] == 0);
  CHECK(Tq(d, {"wait", v1}).exit_code == 125);
  CHECK(Tq(d, {"wait", v2}).exit_code == 0);

  // The same with the older version held in a paused queue.
  REQUIRE(Tq(d, {"queue", "pause", "held"}).exit_code == 0);
  const std::string h1 = Submit(d, Keyed("held-job", 1, {"--queue", "held", "--", "true"}));
  const std::string h2 = Submit(d, Keyed("held-job", 2, {"--queue", "held", "--", "true"}));
  CHECK(TaskJson(d, h1)["reason"] == "superseded");
  CHECK(TaskState(d, h2) == "pending");
  CHECK(IdsWithKey(d, "held-job").size() == 2);
}

TEST_CASE("a higher version leaves a running lower one alone unless --supersede-running") {
  TestDaemon d;
  TQ_LOG_ON_FAILURE(d);
  const std::string gate = d.dir() + "/go", pidfile = d.dir() + "/v1.pid";
  const std::string v1 = Submit(d, Keyed("svc", 1, GatedCmd(gate, pidfile)));
  const pid_t pid = WaitPidFile(pidfile);
  REQUIRE(WaitState(d, v1, "running"));

  const std::string v2 = Submit(d, Keyed("svc", 2, {"--delay", "1h", "--", "true"}));
  CHECK(v2 != v1);
  CHECK(TaskState(d, v1) == "running");  // the old run continues
  CHECK_FALSE(ProcessGone(pid));

  const std::string v3 =
      Submit(d, Keyed("svc", 3, {"--supersede-running", "--delay", "1h", "--", "true"}));
  CHECK(v3 != v2);
  CHECK(WaitState(d, v1, "cancelled"));
  const nlohmann::json t1 = TaskJson(d, v1);
  CHECK(t1["reason"] == "superseded");
  REQUIRE(t1["attempt_log"].size() == 1);
  CHECK(t1["attempt_log"][0]["reason"] == "cancelled");
  CHECK(WaitFor([&] { return ProcessGone(pid); }));
  const nlohmann::json t2 = TaskJson(d, v2);  // the pending v2 is superseded as well
  CHECK(t2["state"] == "cancelled");
  CHECK(t2["reason"] == "superseded");
  CHECK(TaskState(d, v3) == "pending");
}

TEST_CASE("the same key and version on a failed or cancelled task replaces it in place") {
  TestDaemon d;
  TQ_LOG_ON_FAILURE(d);
  const std::string id = Submit(d, Keyed("etl", 7, {"--", "sh", "-c", "exit 3"}));
  CHECK(Tq(d, {"wait", id}).exit_code == 3);
  CHECK(TaskState(d, id) == "failed");

  const std::string gate = d.dir() + "/go", pidfile = d.dir() + "/pid";
  CHECK(Submit(d, Keyed("etl", 7, GatedCmd(gate, pidfile))) == id);
  WaitPidFile(pidfile);  // the new request runs
  const nlohmann::json running = TaskJson(d, id);
  CHECK(running["state"] == "running");
  CHECK(running["reason"].is_null());
  CHECK(running["attempts"] == 1);  // the attempt count started again
  CHECK(running["argv"][0] == "sh");
  WriteFile(gate, "");
  CHECK(Tq(d, {"wait", id}).exit_code == 0);
  const nlohmann::json done = TaskJson(d, id);
  CHECK(done["state"] == "succeeded");
  CHECK(done["attempts"] == 1);
  CHECK(done["exit_code"] == 0);
  CHECK(IdsWithKey(d, "etl") == std::vector<long long>{std::stoll(id)});

  // A cancelled one comes back as pending, with the new request.
  const std::string c = Submit(d, Keyed("later", 1, {"--delay", "1h", "--", "true"}));
  CHECK(Tq(d, {"cancel", c}).exit_code == 0);
  CHECK(Submit(d, Keyed("later", 1, {"--delay", "2h", "--label", "again", "--", "true"})) == c);
  const nlohmann::json tc = TaskJson(d, c);
  CHECK(tc["state"] == "pending");
  CHECK(tc["reason"].is_null());
  CHECK(tc["labels"] == nlohmann::json::array({"again"}));
  CHECK(IdsWithKey(d, "later").size() == 1);
}

TEST_CASE("two tq processes racing with the same key and version end with exactly one task") {
  TestDaemon d("[queues.race-held]\n");
  TQ_LOG_ON_FAILURE(d);
  // Half of the rounds in a paused queue (the second submit meets a pending task), half running
  // `true` (it may meet a pending, running or succeeded one).
  REQUIRE(Tq(d, {"queue", "pause", "race-held"}).exit_code == 0);
  constexpr int kRounds = kSanitized ? 50 : 200;  // 400 processes cost minutes under ASan
  std::map<std::string, long long> printed;
  for (int round = 0; round < kRounds; ++round) {
    CAPTURE(round);
    const std::string key = "race-" + std::to_string(round);
    const std::string queue = round % 2 == 0 ? "race-held" : "default";
    std::vector<std::string> argv = {BinPath("tq"), "--socket", d.socket(),  "submit",
                                     "--key",       key,        "--version", "1",
                                     "--queue",     queue,      "--",        "true"};
    // Both start before either is waited for.
    auto first = std::make_unique<Process>(argv, std::vector<std::string>{d.MarkEnv()});
    auto second = std::make_unique<Process>(argv, std::vector<std::string>{d.MarkEnv()});
    const RunResult r1 = first->Finish();
    const RunResult r2 = second->Finish();
    REQUIRE_MESSAGE(r1.exit_code == 0, r1.err);
    REQUIRE_MESSAGE(r2.exit_code == 0, r2.err);
    REQUIRE(r1.out == r2.out);
    REQUIRE(!r1.out.empty());
    printed[key] = std::stoll(r1.out);
  }
  std::map<std::string, std::vector<long long>> stored;
  for (const auto& t : ListTasks(d)) {
    REQUIRE(t["key"].is_string());
    stored[t["key"].get<std::string>()].push_back(t["id"].get<long long>());
  }
  CHECK(stored.size() == static_cast<size_t>(kRounds));
  for (const auto& [key, id] : printed) {
    CAPTURE(key);
    CHECK(stored[key] == std::vector<long long>{id});
  }
}
