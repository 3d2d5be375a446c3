// What a task gets of the machine: its own CPU time and peak RSS from wait4 in its supervisor, and
// the nice, ionice and limits of its queue and job.
#include <doctest/doctest.h>

#include "support/jobs.h"
#include "support/test_daemon.h"

using namespace tqtest;

TEST_CASE("a task that touches 200 MiB and burns 1 s of CPU reports at least that") {
  TestDaemon d;
  TQ_LOG_ON_FAILURE(d);
  const std::string id = Submit(d, {"--", TQ_BURN_PATH, "200", "1"});
  REQUIRE(Tq(d, {"wait", id}).exit_code == 0);
  const nlohmann::json t = TaskJson(d, id);
  REQUIRE(t["attempt_log"].size() == 1);
  const nlohmann::json& a = t["attempt_log"][0];
  CHECK(a["max_rss_kb"].get<int64_t>() >= 200 * 1024);
  // CPU time, not wall time: the burner stops once CLOCK_PROCESS_CPUTIME_ID reaches 1 s, so
  // rusage user+system is at least 1000 ms, less up to 1 ms lost by truncating each of the two
  // fields from microseconds to milliseconds.
  CHECK(a["user_cpu_ms"].get<int64_t>() + a["system_cpu_ms"].get<int64_t>() >= 998);
}

TEST_CASE("tqd raises its own descriptor limit, tasks start with the one it was given") {
  TestDaemon d("", {"/usr/bin/prlimit", "--nofile=256:4096", "--"});
  TQ_LOG_ON_FAILURE(d);
  const std::string own = ReadFile("/proc/" + std::to_string(d.DaemonPid()) + "/limits");
  CHECK(own.find("Max open files            4096                 4096") != std::string::npos);
  const std::string id = Submit(d, {"--shell", "ulimit -Sn; ulimit -Hn"});
  REQUIRE(Tq(d, {"wait", id}).exit_code == 0);
  CHECK(Tq(d, {"logs", id}).out == "256\n4096\n");
}

TEST_CASE("a queue's nice, ionice and limits reach its tasks, and a job's own win") {
  TestDaemon d("[queues.batch]\nnice = 10\nionice = \"idle\"\nnofile = 128\n");
  TQ_LOG_ON_FAILURE(d);
  const std::string probe =
      "cut -d' ' -f19 /proc/self/stat; ionice -p $$; grep '^Max open files' /proc/self/limits | "
      "tr -s ' '";
  const std::string id = Submit(d, {"--queue", "batch", "--", "sh", "-c", probe});
  CHECK(Tq(d, {"wait", id}).exit_code == 0);
  CHECK(Tq(d, {"logs", id}).out == "10\nidle\nMax open files 128 128 files \n");

  d.WriteJobFile("nightly.toml",
                 JobFile("nightly", "0 0 1 1 *", probe, {"queue = \"batch\"", "nice = 3"}));
  Reload(d);
  const RunResult run = Tq(d, {"jobs", "run", "nightly"});
  REQUIRE_MESSAGE(run.exit_code == 0, run.err);
  const std::string job = run.out.substr(0, run.out.find('\n'));
  CHECK(Tq(d, {"wait", job}).exit_code == 0);
  CHECK(Tq(d, {"logs", job}).out == "3\nidle\nMax open files 128 128 files \n");
}
