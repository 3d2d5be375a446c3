// `tq reload` and SIGHUP read tqd.toml again (issue 26): what a running tqd can change changes
// at once, what it cannot is named as needing a restart, and a file that does not load changes
// nothing and says FILE:LINE: reason.
#include <doctest/doctest.h>

#include <csignal>
#include <string>

#include "support/test_daemon.h"

using namespace tqtest;

namespace {

// A task that runs until `gate` exists.
std::vector<std::string> Gated(const std::string& gate) {
  return {"--", "sh", "-c", "while [ ! -e " + Quoted(gate) + " ]; do sleep 0.05; done"};
}

}  // namespace

TEST_CASE("tq reload puts a new max_running and new queue settings in force at once") {
  TestDaemon d("max_running = 1\n");
  TQ_LOG_ON_FAILURE(d);
  const std::string gate = d.dir() + "/gate";
  const std::string first = Submit(d, Gated(gate));
  REQUIRE(WaitState(d, first, "running"));
  const std::string second = Submit(d, Gated(gate));
  CHECK(TaskState(d, second) == "pending");

  d.WriteConfig("max_running = 2\n[queues.gpu]\nconcurrency = 3\npriority_mix = \"strict\"\n");
  const RunResult r = Tq(d, {"reload"});
  CHECK_MESSAGE(r.exit_code == 0, r.err);
  CHECK(r.out.find("tqd.toml: max_running changed\n") != std::string::npos);
  CHECK(r.out.find("tqd.toml: queues.gpu changed\n") != std::string::npos);
  CHECK(r.err.empty());
  CHECK(WaitState(d, second, "running"));
  const RunResult queues = Tq(d, {"--json", "queue", "list"});
  bool found = false;
  for (const auto& q : JsonLines(queues.out)) {
    if (q["name"] != "gpu") continue;
    found = true;
    CHECK(q["concurrency"] == 3);
    CHECK(q["priority_mix"] == "strict");
  }
  CHECK(found);

  // Nothing changed: nothing said.
  const RunResult again = Tq(d, {"reload"});
  CHECK(again.out.find("tqd.toml") == std::string::npos);
  WriteFile(gate, "");
  CHECK(Tq(d, {"wait", first, second}).exit_code == 0);
}

TEST_CASE("a tqd.toml that does not load changes nothing, and paths need a restart") {
  TestDaemon d("max_running = 2\n");
  TQ_LOG_ON_FAILURE(d);
  d.WriteConfig("max_running = 3\nmax_runing = 4\n");
  const RunResult bad = Tq(d, {"reload"});
  CHECK(bad.exit_code == 2);
  CHECK(bad.err.find("tqd.toml:3: max_runing: unknown key") != std::string::npos);
  // The good file as it was: nothing to change, so the bad one changed nothing.
  d.WriteConfig("max_running = 2\n");
  CHECK(Tq(d, {"reload"}).out.find("tqd.toml") == std::string::npos);

  d.WriteConfig("max_running = 2\nsocket = " + Quoted(d.dir() + "/other.sock") +
                "\ndurability = \"normal\"\n");
  const RunResult restart = Tq(d, {"reload"});
  CHECK_MESSAGE(restart.exit_code == 0, restart.err);
  CHECK(restart.err ==
        "tq: reload: tqd.toml: durability needs a restart of tqd\n"
        "tq: reload: tqd.toml: socket needs a restart of tqd\n");
  CHECK(Tq(d, {"ping"}).exit_code == 0);  // still on its socket
}

TEST_CASE("SIGHUP reads tqd.toml again too") {
  TestDaemon d("max_running = 1\n");
  TQ_LOG_ON_FAILURE(d);
  d.WriteConfig("max_running = 5\n");
  REQUIRE(kill(d.pid(), SIGHUP) == 0);
  CHECK(
      WaitFor([&] { return d.Log().find("tqd.toml: max_running changed") != std::string::npos; }));
  d.WriteConfig("max_running = \"many\"\n");
  REQUIRE(kill(d.pid(), SIGHUP) == 0);
  CHECK(WaitFor([&] { return d.Log().find("nothing of tqd.toml changed") != std::string::npos; }));
  CHECK(Tq(d, {"ping"}).exit_code == 0);
}
