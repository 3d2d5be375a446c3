// Claims across hosts on one PostgreSQL store (SPEC 12): max_running is each host's own, so a
// task submitted on a full host runs on another; a queue's concurrency counts every host's.
#include <doctest/doctest.h>
#include <unistd.h>

#include <set>
#include <sstream>
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
  const std::string anywhere = "[queues.default]\nhosts = \"any\"\n";
  TestDaemon a(OneSlotHost(uri, "a", anywhere));
  TQ_LOG_ON_FAILURE(a);
  TestDaemon b(OneSlotHost(uri, "b", anywhere));
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

TEST_CASE("hosts: a task runs where its queue's hosts and --host place it, or waits for its host") {
  std::string why;
  const std::string uri = tq::test::FreshSchemaUri(&why);
  if (uri.empty()) TQ_SKIP(why);
  const std::string queues = "[queues.anywhere]\nhosts = \"any\"\n[queues.on_b]\nhosts = [\"b\"]\n";
  TestDaemon a(OneSlotHost(uri, "a", queues));
  TQ_LOG_ON_FAILURE(a);
  TestDaemon b(OneSlotHost(uri, "b", queues));
  TQ_LOG_ON_FAILURE(b);
  const std::string gate = a.dir() + "/gate";
  const std::string busy =
      Submit(a, {"--", "sh", "-c", "while [ ! -e " + Quoted(gate) + " ]; do sleep 0.05; done"});
  CHECK(RunningHosts(a, {busy}) == std::multiset<std::string>{"a"});

  // A queue without hosts: the task waits for its full host while b is free.
  const std::string mine = Submit(a, {"--", "true"});
  CHECK(TaskJson(b, mine)["run_on"] == "a");
  // --host, where the queue allows it, and a queue that names b: both run on b.
  const std::string asked = Submit(a, {"--host", "b", "--queue", "anywhere", "--", "true"});
  const std::string named = Submit(a, {"--queue", "on_b", "--", "true"});
  CHECK(TaskJson(a, named)["run_on"].is_null());
  for (const std::string& id : {asked, named}) {
    CHECK(Tq(a, {"wait", id}).exit_code == 0);
    CHECK(TaskJson(a, id)["attempt_log"].back()["host"] == "b");
  }
  CHECK(TaskJson(a, mine)["state"] == "pending");  // b had free turns and left it
  // tq list through either host: where each task ran, or the host it waits for.
  const RunResult list = Tq(b, {"list"});
  REQUIRE_MESSAGE(list.exit_code == 0, list.err);
  CHECK(WordsOfRow(list.out, "ID") == std::vector<std::string>{"ID", "STATE", "PRI", "QUEUE",
                                                               "HOST", "CREATED", "WHEN",
                                                               "COMMAND"});
  const std::vector<std::pair<std::string, std::string>> hosts = {
      {mine, "a"}, {asked, "b"}, {named, "b"}, {busy, "a"}};
  for (const auto& [id, host] : hosts) {
    CAPTURE(id);
    const std::vector<std::string> row = WordsOfRow(list.out, id);
    REQUIRE(row.size() > 4);
    CHECK(row[4] == host);
  }

  // --host where the queue does not allow it is refused, naming the host and the queue's rule.
  const RunResult refused = Tq(a, {"submit", "--host", "b", "--", "true"});
  CHECK(refused.exit_code != 0);
  CHECK(refused.err.find("host: \"b\" may not run it") != std::string::npos);
  CHECK(refused.err.find("submitted on, \"a\"") != std::string::npos);
  const RunResult unknown = Tq(a, {"submit", "--host", "c", "--queue", "anywhere", "--", "true"});
  CHECK(unknown.exit_code == 2);
  CHECK(unknown.err.find("host: \"c\" is no host of this store (its hosts: \"a\", \"b\")") !=
        std::string::npos);

  WriteFile(gate, "");
  CHECK(Tq(a, {"wait", busy, mine}).exit_code == 0);
  CHECK(TaskJson(a, mine)["attempt_log"].back()["host"] == "a");
}

TEST_CASE("hosts: tq logs through any host: an ended attempt's output comes from the store") {
  std::string why;
  const std::string uri = tq::test::FreshSchemaUri(&why);
  if (uri.empty()) TQ_SKIP(why);
  TestDaemon a(OneSlotHost(uri, "a"));
  TQ_LOG_ON_FAILURE(a);
  TestDaemon b(OneSlotHost(uri, "b"));
  TQ_LOG_ON_FAILURE(b);
  const std::string gate = b.dir() + "/gate";
  const std::string id =
      Submit(b, {"--", "sh", "-c",
                 "printf 'one\\n'; printf 'two\\n' >&2; while [ ! -e " + Quoted(gate) +
                     " ]; do sleep 0.05; done; printf 'three\\377\\n'"});
  CHECK(RunningHosts(a, {id}) == std::multiset<std::string>{"b"});

  // While b runs it, a says where it runs; a follower through a gets the output at the end.
  const RunResult early = Tq(a, {"logs", id});
  CHECK(early.exit_code == 0);
  CHECK(early.out.empty());
  CHECK(early.err.find("runs on host b") != std::string::npos);
  Process follow({BinPath("tq"), "--socket", a.socket(), "logs", "-f", id}, {a.MarkEnv()});
  WriteFile(gate, "");
  const RunResult followed = follow.Finish();
  CHECK(followed.exit_code == 0);
  CHECK(followed.out == "one\nthree\xff\n");

  // Once ended, every stream and the merged order read the same through either host.
  for (TestDaemon* d : {&a, &b}) {
    CHECK(Tq(*d, {"logs", id}).out == "one\nthree\xff\n");
    CHECK(Tq(*d, {"logs", "--stderr", id}).out == "two\n");
    CHECK(Tq(*d, {"logs", "--merged", id}).out == "one\ntwo\nthree\xff\n");
  }
}

TEST_CASE("hosts: the files of a task another host cleaned are removed on the host that ran it") {
  std::string why;
  const std::string uri = tq::test::FreshSchemaUri(&why);
  if (uri.empty()) TQ_SKIP(why);
  TestDaemon a(OneSlotHost(uri, "a"));
  TQ_LOG_ON_FAILURE(a);
  TestDaemon b(OneSlotHost(uri, "b"));
  TQ_LOG_ON_FAILURE(b);
  const std::string cleaned = Submit(b, {"--", "echo", "from b"});
  const std::string kept = Submit(b, {"--", "echo", "kept"});
  for (const std::string& id : {cleaned, kept}) REQUIRE(Tq(b, {"wait", id}).exit_code == 0);
  // Task ids below 1000 keep their files in attempts/0/.
  const std::string files = b.state_dir() + "/attempts/0/";
  REQUIRE(ReadFile(files + cleaned + ".1.out") == "from b\n");
  const RunResult clean = Tq(a, {"clean", cleaned});
  REQUIRE_MESSAGE(clean.exit_code == 0, clean.err);
  CHECK(ReadFile(files + cleaned + ".1.out") == "from b\n");  // a had none of its files
  // b looks for such files when it starts (and every ten minutes).
  b.Restart();
  CHECK(WaitFor([&] { return access((files + cleaned + ".1.out").c_str(), F_OK) != 0; }));
  CHECK(ReadFile(files + kept + ".1.out") == "kept\n");
}
