// Sharded work across hosts (SPEC 12): a job with `shards = 6` on three tqd sharing one
// PostgreSQL store spreads its shards two to a host (no host takes another while a host with a
// free slot runs fewer), a killed host's shards are rescued and finish elsewhere, and the group's
// hook runs once, on one host.
#include <doctest/doctest.h>

#include <algorithm>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "support/jobs.h"
#include "support/pg_server.h"
#include "support/skip.h"
#include "support/test_daemon.h"

using namespace tqtest;

TEST_CASE("hosts: a job with shards = 6 on three hosts runs two on each, its hook once" *
          doctest::test_suite("long")) {
  std::string why;
  const std::string uri = tq::test::FreshSchemaUri(&why);
  if (uri.empty()) TQ_SKIP(why);
  const std::vector<std::string> names = {"a", "b", "c"};
  std::vector<std::unique_ptr<TestDaemon>> hosts;
  for (const std::string& name : names) {
    hosts.push_back(std::make_unique<TestDaemon>(
        "store = " + Quoted(uri) + "\nhost = " + Quoted(name) +
        "\nhost_lease = \"3s\"\nmax_running = 4\n[queues.default]\nhosts = \"any\"\n"));
    TQ_LOG_ON_FAILURE(*hosts.back());
  }
  TestDaemon& a = *hosts[0];
  const std::string slices = a.dir() + "/slices", hook = a.dir() + "/hook", gate = a.dir() + "/go";
  const nlohmann::json on_finish = "echo \"$TQ_TASK_ID $TQ_STATE\" >> " + Quoted(hook);
  const std::string job =
      JobFile("settle", "0 3 * * *",
              "echo \"$TQ_SHARD_INDEX/$TQ_SHARD_TOTAL\" >> " + Quoted(slices) + "; while [ ! -e " +
                  Quoted(gate) + " ]; do sleep 0.05; done",
              {"shards = 6", "retries = 2", "backoff = { kind = \"fixed\", base = \"0s\" }",
               "on_finish = " + on_finish.dump()});
  for (auto& h : hosts) {
    h->WriteJobFile("settle.toml", job);
    Reload(*h);
  }

  const RunResult run = Tq(a, {"jobs", "run", "settle"});
  REQUIRE_MESSAGE(run.exit_code == 0, run.err);
  const std::string group = run.out.substr(0, run.out.find('\n'));
  const RunResult status = Tq(a, {"--json", "status", group});
  REQUIRE_MESSAGE(status.exit_code == 0, status.err);
  const nlohmann::json shards = nlohmann::json::parse(status.out)["shards"];
  std::vector<std::string> ids;
  for (const auto& shard : shards) ids.push_back(shard["id"].dump());
  REQUIRE(ids.size() == 6);

  // Every shard runs, two on each host.
  std::map<std::string, std::vector<std::string>> on;  // host -> its shards
  REQUIRE(WaitFor([&] {
    on.clear();
    for (const std::string& id : ids) {
      const nlohmann::json t = TaskJson(a, id);
      if (t["state"] != "running" || !t["attempt_log"].back()["host"].is_string()) return false;
      on[t["attempt_log"].back()["host"].get<std::string>()].push_back(id);
    }
    return true;
  }));
  for (const std::string& name : names) {
    CAPTURE(name);
    CHECK(on[name].size() == 2);
  }
  // tq status of the group tells each shard's host, in --json and in its table.
  const RunResult by_shard = Tq(a, {"--json", "status", group});
  REQUIRE_MESSAGE(by_shard.exit_code == 0, by_shard.err);
  for (const auto& shard : nlohmann::json::parse(by_shard.out)["shards"]) {
    REQUIRE(shard["host"].is_string());
    const std::vector<std::string>& there = on[shard["host"].get<std::string>()];
    CHECK(std::find(there.begin(), there.end(), shard["id"].dump()) != there.end());
  }
  const RunResult table = Tq(a, {"status", group});
  CAPTURE(table.out);
  CHECK(WordsOfRow(table.out, "SHARD") ==
        std::vector<std::string>{"SHARD", "ID", "STATE", "HOST", "ATTEMPTS", "EXIT"});
  for (const auto& [host, shards] : on)
    for (const std::string& id : shards) {
      CAPTURE(id);
      // Each shard's row is INDEX ID STATE HOST ...: found by its id in the second column.
      bool shown = false;
      for (int index = 0; index < 6; ++index) {
        const std::vector<std::string> row = WordsOfRow(table.out, std::to_string(index));
        if (row.size() > 3 && row[1] == id) shown = row[3] == host;
      }
      CHECK(shown);
    }
  REQUIRE(WaitFor([&] { return FileLines(slices).size() == 6; }));
  std::vector<std::string> told = FileLines(slices);
  std::sort(told.begin(), told.end());
  CHECK(told == std::vector<std::string>{"0/6", "1/6", "2/6", "3/6", "4/6", "5/6"});

  // c is killed: after the lease its two shards are lost there and run again on a or b.
  hosts[2]->Kill9();
  REQUIRE(WaitFor(
      [&] {
        for (const std::string& id : on["c"]) {
          const nlohmann::json t = TaskJson(a, id);
          if (t["state"] != "running" || t["attempt_log"].back()["host"] == "c") return false;
        }
        return true;
      },
      120));
  WriteFile(gate, "");
  const RunResult waited = Tq(a, {"wait", group});
  CHECK_MESSAGE(waited.exit_code == 0, waited.err);
  for (const std::string& id : on["c"]) {
    const nlohmann::json t = TaskJson(a, id);
    CHECK(t["state"] == "succeeded");
    REQUIRE(t["attempt_log"].size() == 2);
    CHECK(t["attempt_log"][0]["reason"] == "lost");
    CHECK(t["attempt_log"][1]["host"] != "c");
  }

  // The group's hook ran once, on one of the hosts that saw it end; each host went on past it.
  REQUIRE(WaitFor([&] { return !FileLines(hook).empty(); }));
  for (size_t i = 0; i < 2; ++i)
    CHECK(Tq(*hosts[i], {"wait", Submit(*hosts[i], {"--", "true"})}).exit_code == 0);
  CHECK(FileLines(hook) == std::vector<std::string>{group + " succeeded"});
}
