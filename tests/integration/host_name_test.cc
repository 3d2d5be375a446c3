// The name a tqd goes by in its store (tqd.toml's `host`, else the machine's hostname, SPEC 12):
// the attempts it starts are that host's; with SQLite a renamed host keeps them; a hostname tq
// does not accept stops tqd at start asking for `host`.
#include <doctest/doctest.h>
#include <unistd.h>

#include <string>
#include <vector>

#include "support/skip.h"
#include "support/temp_dir.h"
#include "support/test_daemon.h"

using namespace tqtest;

TEST_CASE("host: a tqd renamed on its SQLite store keeps the tasks it ran under the old name") {
  TestDaemon d("host = \"web-1\"\n");
  TQ_LOG_ON_FAILURE(d);
  CHECK(d.Log().find("store: SQLite, as host web-1") != std::string::npos);
  const std::string gate = d.dir() + "/gate";
  const std::string id =
      Submit(d, {"--", "sh", "-c", "while [ ! -e " + Quoted(gate) + " ]; do sleep 0.05; done"});
  REQUIRE(WaitFor([&] { return TaskJson(d, id)["state"] == "running"; }));
  d.WriteConfig("host = \"web-2\"\n");
  d.Restart();
  CHECK(d.Log().find("store: SQLite, as host web-2") != std::string::npos);
  CHECK(TaskJson(d, id)["state"] == "running");
  WriteFile(gate, "");
  CHECK(Tq(d, {"wait", id}).exit_code == 0);
  CHECK(TaskJson(d, id)["attempts"] == 1);
}

TEST_CASE("host: with SQLite, tq submit --host may name only this host, and places nothing") {
  TestDaemon d("host = \"web-1\"\n[queues.anywhere]\nhosts = \"any\"\n");
  TQ_LOG_ON_FAILURE(d);
  const std::string id = Submit(d, {"--host", "web-1", "--", "true"});
  CHECK(Tq(d, {"wait", id}).exit_code == 0);
  CHECK(TaskJson(d, id)["run_on"].is_null());  // one host runs every task
  for (const char* queue : {"default", "anywhere"}) {
    const RunResult other = Tq(d, {"submit", "--queue", queue, "--host", "web-2", "--", "true"});
    CHECK(other.exit_code == 2);
    CHECK(other.err.find("host: \"web-2\" is not this host \"web-1\"") != std::string::npos);
  }
  const RunResult bad = Tq(d, {"submit", "--host", "web 2", "--", "true"});
  CHECK(bad.exit_code == 2);
  CHECK(bad.err.find("host name \"web 2\" is not allowed") != std::string::npos);
  CHECK(Tq(d, {"list", "--json"}).out.find("web-2") == std::string::npos);  // nothing was made
}

TEST_CASE("host: a machine whose hostname tq does not accept stops tqd, which asks for host") {
  if (geteuid() != 0 || access("/usr/bin/unshare", X_OK) != 0)
    TQ_SKIP("needs root and unshare(1) for a hostname of its own");
  tq::TempDir tmp{"host-name"};
  const std::string dir = tmp.path.string();
  WriteFile(dir + "/tqd.toml", "jobs_dir = " + Quoted(dir + "/jobs.d") + "\n");
  // A UTS namespace of its own: the machine's name is not touched.
  Process tqd({"/usr/bin/unshare", "--uts", "sh", "-c",
               "echo 'bad name' > /proc/sys/kernel/hostname && exec \"$0\" --socket \"$1\" --state "
               "\"$2\" --config \"$3\"",
               BinPath("tqd"), dir + "/tq.sock", dir + "/state", dir + "/tqd.toml"},
              {});
  const RunResult r = tqd.Finish();
  CHECK(r.exit_code == 78);
  CHECK_MESSAGE(
      r.err.find("host: the machine's host name \"bad name\" is not allowed") != std::string::npos,
      r.err);
  CHECK_MESSAGE(r.err.find("set host in tqd.toml") != std::string::npos, r.err);
}
