// Reloading job files through the real tqd (issue 11): a file that breaks keeps its last good
// jobs firing, across `tq reload` and a daemon restart, and its file, line and reason are shown
// by `tq reload` (exit 2) and `tq jobs`.
#include <doctest/doctest.h>
#include <unistd.h>

#include <string>

#include "support/jobs.h"
#include "support/test_daemon.h"

using namespace tqtest;

namespace {

// A broken version of tick.toml: line 5 has a key no job has.
std::string BrokenTick() {
  return JobFile("tick", "* * * * * *", "echo broken", {"frobnicate = 1"});
}

// True once `n` more runs of `name` than `before` exist.
bool MoreRuns(const TestDaemon& d, const std::string& name, size_t before, size_t n) {
  return WaitFor([&] { return JobRuns(d, name).size() >= before + n; });
}

}  // namespace

TEST_CASE("a broken reload keeps the old job firing and names the file line and reason") {
  TestDaemon d;
  TQ_LOG_ON_FAILURE(d);
  d.WriteJobFile("tick.toml", JobFile("tick", "* * * * * *", "echo good"));
  Reload(d);
  REQUIRE(MoreRuns(d, "tick", 0, 1));

  d.WriteJobFile("tick.toml", BrokenTick());
  const RunResult reload = Tq(d, {"reload"});
  CHECK(reload.exit_code == 2);
  const std::string where = d.jobs_dir() + "/tick.toml:5";
  CHECK_MESSAGE(reload.err.find(where) != std::string::npos, reload.err);
  CHECK_MESSAGE(reload.err.find("frobnicate") != std::string::npos, reload.err);
  CHECK_MESSAGE(reload.err.find("(its last good jobs stay in force)") != std::string::npos,
                reload.err);

  const RunResult json = Tq(d, {"reload", "--json"});
  CHECK(json.exit_code == 2);
  const nlohmann::json report = nlohmann::json::parse(json.out);
  REQUIRE(report["errors"].size() == 1);
  CHECK(report["errors"][0]["file"] == d.jobs_dir() + "/tick.toml");
  CHECK(report["errors"][0]["line"] == 5);
  CHECK(report["errors"][0]["kept"] == true);

  // A new file that never loaded has no last good jobs, and says so.
  d.WriteJobFile("new.toml", BrokenTick());
  const RunResult fresh = Tq(d, {"reload"});
  CHECK(fresh.exit_code == 2);
  const std::string new_where = d.jobs_dir() + "/new.toml:5";
  const size_t at = fresh.err.find(new_where);
  REQUIRE_MESSAGE(at != std::string::npos, fresh.err);
  const std::string line = fresh.err.substr(at, fresh.err.find('\n', at) - at);
  CHECK_MESSAGE(line.find("(none of its jobs are in force)") != std::string::npos, line);
  REQUIRE(unlink((d.jobs_dir() + "/new.toml").c_str()) == 0);
  Tq(d, {"reload"});

  // The good definition goes on firing.
  const size_t before = JobRuns(d, "tick").size();
  REQUIRE(MoreRuns(d, "tick", before, 2));
  CHECK(JobRuns(d, "tick").front()["shell"] == "echo good");
  const nlohmann::json jobs = JobsJson(d);
  REQUIRE(jobs["errors"].size() == 1);
  CHECK(jobs["errors"][0]["line"] == 5);
  CHECK(JobJson(d, "tick")["from_last_good"] == true);
  const RunResult table = Tq(d, {"jobs"});
  CHECK(table.exit_code == 0);
  CHECK_MESSAGE(table.out.find("tick*") != std::string::npos, table.out);
  CHECK_MESSAGE(table.out.find(where) != std::string::npos, table.out);

  // Fixed, it loads again.
  d.WriteJobFile("tick.toml", JobFile("tick", "* * * * * *", "echo fixed"));
  Reload(d);
  CHECK(JobsJson(d)["errors"].empty());
  CHECK(JobJson(d, "tick")["from_last_good"] == false);
  REQUIRE(WaitFor([&] { return JobRuns(d, "tick").front()["shell"] == "echo fixed"; }));
}

TEST_CASE("a broken job file and a daemon restart still fire the last good job") {
  TestDaemon d;
  TQ_LOG_ON_FAILURE(d);
  d.WriteJobFile("tick.toml", JobFile("tick", "* * * * * *", "echo good"));
  Reload(d);
  REQUIRE(MoreRuns(d, "tick", 0, 1));
  d.WriteJobFile("tick.toml", BrokenTick());
  d.Restart();

  const size_t before = JobRuns(d, "tick").size();
  REQUIRE(MoreRuns(d, "tick", before, 2));
  CHECK(JobRuns(d, "tick").front()["shell"] == "echo good");
  const nlohmann::json jobs = JobsJson(d);
  REQUIRE(jobs["errors"].size() == 1);
  CHECK(jobs["errors"][0]["file"] == d.jobs_dir() + "/tick.toml");
}

TEST_CASE("removing a job stops its firings and leaves its running task alone") {
  TestDaemon d;
  TQ_LOG_ON_FAILURE(d);
  const std::string pid_file = d.dir() + "/long.pid";
  // Its first run stays (overlap = skip: no other run while it runs); a second job ticks.
  d.WriteJobFile("long.toml", JobFile("long", "* * * * * *",
                                      "echo $$ > " + Quoted(pid_file) + "; exec sleep 600"));
  d.WriteJobFile("tick.toml", JobFile("tick", "* * * * * *", "true"));
  Reload(d);
  const pid_t pid = WaitPidFile(pid_file);
  REQUIRE(JobRuns(d, "long").size() == 1);
  const std::string id = JobRuns(d, "long").front()["id"].dump();

  REQUIRE(unlink((d.jobs_dir() + "/long.toml").c_str()) == 0);
  const RunResult reload = Tq(d, {"reload", "--json"});
  REQUIRE_MESSAGE(reload.exit_code == 0, reload.err);
  CHECK(nlohmann::json::parse(reload.out)["removed"] == 1);
  CHECK(JobJson(d, "long").is_null());

  // Two more seconds pass (the other job fires twice): the removed job fired no more, and its
  // run goes on.
  const size_t ticks = JobRuns(d, "tick").size();
  REQUIRE(WaitFor([&] { return JobRuns(d, "tick").size() >= ticks + 2; }));
  CHECK(JobRuns(d, "long").size() == 1);
  CHECK(TaskState(d, id) == "running");
  CHECK_FALSE(ProcessGone(pid));
  CHECK(Tq(d, {"cancel", id}).exit_code == 0);
}
