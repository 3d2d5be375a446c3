// Cron jobs through the real tqd (issue 11): a job every second fires each second, each firing an
// ordinary task labelled job:NAME that carries its job; `tq jobs` and `tq jobs show` show it.
#include <doctest/doctest.h>

#include <set>
#include <string>
#include <vector>

#include "support/jobs.h"
#include "support/test_daemon.h"

using namespace tqtest;

TEST_CASE("a job every second fires as tasks labelled job:NAME") {
  TestDaemon d;
  TQ_LOG_ON_FAILURE(d);
  d.WriteJobFile("tick.toml", JobFile("tick", "* * * * * *", "echo tick"));
  Reload(d);
  REQUIRE(WaitFor([&] { return JobRuns(d, "tick").size() >= 3; }));

  // One snapshot: the job goes on firing while the test reads it. Firing each (job, second) at
  // most once is the store's key (tests/core/store/jobs_test.cc); creation times cannot show it
  // on a loaded machine, where a late firing and the next one share a second.
  const std::vector<nlohmann::json> runs = JobRuns(d, "tick");
  std::set<std::string> ids;
  for (const nlohmann::json& t : runs) {
    CAPTURE(t.dump());
    CHECK(t["job"] == "tick");
    CHECK(t["shell"] == "echo tick");
    ids.insert(t["id"].dump());
  }
  CHECK(ids.size() == runs.size());

  const RunResult status = Tq(d, {"status", runs.back()["id"].dump()});
  CHECK(status.exit_code == 0);
  CHECK_MESSAGE(status.out.find("job:tick") != std::string::npos, status.out);
}

TEST_CASE("tq jobs lists a job with its schedule and next and last firing") {
  TestDaemon d;
  TQ_LOG_ON_FAILURE(d);
  d.WriteJobFile("tick.toml", JobFile("tick", "* * * * * *", "true"));
  Reload(d);
  REQUIRE(WaitFor([&] {
    const nlohmann::json j = JobJson(d, "tick");
    return j.is_object() && j["last_state"] == "succeeded";
  }));
  const nlohmann::json j = JobJson(d, "tick");
  CHECK(j["schedule"] == "* * * * * *");
  CHECK(j["disabled"] == false);
  CHECK(j["from_last_good"] == false);
  CHECK(j["next"].is_string());
  CHECK(j["last_fired"].is_string());
  CHECK(j["last_task"].is_number_integer());
  CHECK(JobsJson(d)["errors"].empty());

  // The table is read after the job stops firing: a firing between the JSON and the table would
  // show "running" there.
  const RunResult disable = Tq(d, {"jobs", "disable", "tick"});
  REQUIRE_MESSAGE(disable.exit_code == 0, disable.err);
  REQUIRE(WaitFor([&] { return JobJson(d, "tick")["last_state"] == "succeeded"; }));
  const RunResult table = Tq(d, {"jobs"});
  CHECK(table.exit_code == 0);
  CHECK_MESSAGE(table.out.find("NAME") == 0, table.out);
  CHECK_MESSAGE(table.out.find("tick") != std::string::npos, table.out);
  CHECK_MESSAGE(table.out.find("succeeded") != std::string::npos, table.out);
}

TEST_CASE("tq jobs show prints every field of a job") {
  TestDaemon d;
  TQ_LOG_ON_FAILURE(d);
  d.WriteJobFile("report.toml",
                 JobFile("report", "15 2 * * *", "echo report",
                         {"timezone = \"Europe/Berlin\"", "timeout = \"2h\"", "retries = 3",
                          "overlap = \"queue\"", "misfire = \"run_all\"", "max_catch_up = 4",
                          "env = { REPORT_DIR = \"/srv/reports\" }"}));
  Reload(d);

  const RunResult json = Tq(d, {"jobs", "show", "report", "--json"});
  REQUIRE_MESSAGE(json.exit_code == 0, json.err);
  const nlohmann::json j = nlohmann::json::parse(json.out);
  CHECK(j["name"] == "report");
  CHECK(j["file"] == d.jobs_dir() + "/report.toml");
  CHECK(j["line"] == 1);
  CHECK(j["schedule"] == "15 2 * * *");
  CHECK(j["timezone"] == "Europe/Berlin");
  CHECK(j["command"] == "echo report");
  CHECK(j["timeout_ms"] == 2 * 3600 * 1000);
  CHECK(j["retry"]["retries"] == 3);
  CHECK(j["overlap"] == "queue");
  CHECK(j["misfire"] == "run_all");
  CHECK(j["max_catch_up"] == 4);
  CHECK(j["env"] == nlohmann::json{"REPORT_DIR=/srv/reports"});
  CHECK(j["next"].is_string());
  CHECK(j["last_fired"].is_null());

  const RunResult table = Tq(d, {"jobs", "show", "report"});
  CHECK(table.exit_code == 0);
  for (const char* text : {"Europe/Berlin", "echo report", "2h", "3 retries", "queue",
                           "run_all, at most 4", "REPORT_DIR=/srv/reports"})
    CHECK_MESSAGE(table.out.find(text) != std::string::npos, text << " in\n" << table.out);

  const RunResult missing = Tq(d, {"jobs", "show", "nosuchjob"});
  CHECK(missing.exit_code == 4);
  CHECK_MESSAGE(missing.err.find("nosuchjob") != std::string::npos, missing.err);
  const RunResult bad = Tq(d, {"jobs", "show", "no/such/job"});
  CHECK(bad.exit_code == 2);
}
