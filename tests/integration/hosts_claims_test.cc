// Claims across hosts on one PostgreSQL store (SPEC 12): max_running is each host's own, so a
// task submitted on a full host runs on another; a queue's concurrency counts every host's.
#include <doctest/doctest.h>

#include <set>
#include <string>
#include <vector>

#include "support/pg_server.h"
#include "support/skip.h"
#include "support/test_daemon.h"

using namespace tqtest;

namespace {

// tqd.toml for host `host` on `uri`, running one task at a time, plus `extra`.
std::string OneSlotHost(const std::string& uri, const std::string& host,
                        const std::string& extra = "") {
  return "store = " + Quoted(uri) + "\nhost = " + Quoted(host) + "\nmax_running = 1\n" + extra;
}

// The host of the latest attempt of each of `ids`, as `d` reads them, once all are running.
std::multiset<std::string> RunningHosts(TestDaemon& d, const std::vector<std::string>& ids) {
  std::multiset<std::string> hosts;
  REQUIRE(WaitFor([&] {
    hosts.clear();
    for (const std::string& id : ids) {
      const nlohmann::json t = TaskJson(d, id);
      if (t["state"] != "running" || !t["attempt_log"].back()["host"].is_string()) return false;
      hosts.insert(t["attempt_log"].back()["host"].get<std::string>());
    }
    return true;
  }));
  return hosts;
}

}  // namespace

TEST_CASE("hosts: a task submitted on a full host runs on another, each host within its cap") {
  std::string why;
  const std::string uri = tq::test::FreshSchemaUri(&why);
  if (uri.empty()) TQ_SKIP(why);
  TestDaemon a(OneSlotHost(uri, "a"));
  TQ_LOG_ON_FAILURE(a);
  TestDaemon b(OneSlotHost(uri, "b"));
  TQ_LOG_ON_FAILURE(b);
  const std::string gate = a.dir() + "/gate";
  const std::vector<std::string> waits = {
      "--", "sh", "-c", "while [ ! -e " + Quoted(gate) + " ]; do sleep 0.05; done"};
  const std::vector<std::string> ids = {Submit(a, waits), Submit(a, waits)};
  CHECK(RunningHosts(a, ids) == std::multiset<std::string>{"a", "b"});
  const std::string third = Submit(a, waits);  // both hosts are full: it waits
  CHECK(TaskJson(b, third)["state"] == "pending");
  WriteFile(gate, "");
  for (const std::string& id : ids) CHECK(Tq(a, {"wait", id}).exit_code == 0);
  CHECK(Tq(b, {"wait", third}).exit_code == 0);
}

TEST_CASE("hosts: a queue's concurrency counts the tasks running on every host") {
  std::string why;
  const std::string uri = tq::test::FreshSchemaUri(&why);
  if (uri.empty()) TQ_SKIP(why);
  const std::string queue = "[queues.one]\nconcurrency = 1\n";
  TestDaemon a(OneSlotHost(uri, "a", queue));
  TQ_LOG_ON_FAILURE(a);
  TestDaemon b(OneSlotHost(uri, "b", queue));
  TQ_LOG_ON_FAILURE(b);
  const std::string gate = a.dir() + "/gate";
  const std::vector<std::string> waits = {
      "--queue", "one", "--",
      "sh",      "-c",  "while [ ! -e " + Quoted(gate) + " ]; do sleep 0.05; done"};
  const std::string first = Submit(a, waits);
  const std::string second = Submit(b, waits);
  REQUIRE(WaitFor([&] {
    return TaskJson(a, first)["state"] == "running" || TaskJson(a, second)["state"] == "running";
  }));
  // A free slot on the other host takes nothing of the queue while one of its tasks runs.
  const std::string other = Submit(b, {"--", "true"});
  CHECK(Tq(b, {"wait", other}).exit_code == 0);
  CHECK((TaskJson(a, first)["state"] == "pending") != (TaskJson(a, second)["state"] == "pending"));
  WriteFile(gate, "");
  CHECK(Tq(a, {"wait", first}).exit_code == 0);
  CHECK(Tq(a, {"wait", second}).exit_code == 0);
}

TEST_CASE("hosts: tq wait and tq cancel on one host reach a task running on another") {
  std::string why;
  const std::string uri = tq::test::FreshSchemaUri(&why);
  if (uri.empty()) TQ_SKIP(why);
  TestDaemon a(OneSlotHost(uri, "a"));
  TQ_LOG_ON_FAILURE(a);
  TestDaemon b(OneSlotHost(uri, "b"));
  TQ_LOG_ON_FAILURE(b);
  const std::string id = Submit(a, {"--", "sleep", "600"});
  const std::multiset<std::string> hosts = RunningHosts(a, {id});
  // Through the host that does not run it.
  TestDaemon& other = *hosts.begin() == "a" ? b : a;
  Process wait({BinPath("tq"), "--socket", other.socket(), "wait", id}, {other.MarkEnv()});
  const RunResult cancel = Tq(other, {"cancel", id});
  CHECK_MESSAGE(cancel.exit_code == 0, cancel.err);
  CHECK(TaskJson(other, id)["state"] == "cancelled");
  const RunResult waited = wait.Finish();
  CHECK(waited.exit_code != 0);  // the task did not succeed: tq wait says so
  CHECK(waited.err.find("cancelled") != std::string::npos);
}
