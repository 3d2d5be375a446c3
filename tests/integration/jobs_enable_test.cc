// `tq jobs disable|enable NAME` through the real tqd (issue 11): a disabled job has no next
// firing and stays disabled across a restart; enabled again, it fires.
#include <doctest/doctest.h>

#include <string>

#include "support/jobs.h"
#include "support/test_daemon.h"

using namespace tqtest;

TEST_CASE("tq jobs disable and enable are persisted across a restart") {
  TestDaemon d;
  TQ_LOG_ON_FAILURE(d);
  d.WriteJobFile("tick.toml", JobFile("tick", "* * * * * *", "true"));
  Reload(d);
  REQUIRE(JobJson(d, "tick")["next"].is_string());

  const RunResult disable = Tq(d, {"jobs", "disable", "tick"});
  REQUIRE_MESSAGE(disable.exit_code == 0, disable.err);
  CHECK(disable.out.empty());
  CHECK(JobJson(d, "tick")["disabled"] == true);
  CHECK(JobJson(d, "tick")["next"].is_null());
  const RunResult table = Tq(d, {"jobs"});
  CHECK_MESSAGE(table.out.find("disabled") != std::string::npos, table.out);

  d.Restart();
  CHECK(JobJson(d, "tick")["disabled"] == true);
  CHECK(JobJson(d, "tick")["next"].is_null());

  const RunResult enable = Tq(d, {"jobs", "enable", "tick", "--json"});
  REQUIRE_MESSAGE(enable.exit_code == 0, enable.err);
  CHECK(nlohmann::json::parse(enable.out)["disabled"] == false);
  d.Restart();
  CHECK(JobJson(d, "tick")["disabled"] == false);
  const size_t before = JobRuns(d, "tick").size();
  REQUIRE(WaitFor([&] { return JobRuns(d, "tick").size() > before; }));

  const RunResult missing = Tq(d, {"jobs", "disable", "nosuchjob"});
  CHECK(missing.exit_code == 4);
}
