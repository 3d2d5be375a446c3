// `tq jobs run NAME [--force]` through the real tqd (issue 11): a run now that obeys the job's
// overlap (a second run while the first runs is skipped) unless --force.
#include <doctest/doctest.h>

#include <algorithm>
#include <string>

#include "support/jobs.h"
#include "support/test_daemon.h"

using namespace tqtest;

namespace {
// A schedule that does not fire during a test: once a year.
constexpr const char* kYearly = "0 0 1 1 *";
}  // namespace

TEST_CASE("tq jobs run respects overlap and --force runs anyway") {
  TestDaemon d;
  TQ_LOG_ON_FAILURE(d);
  const std::string pid_file = d.dir() + "/first.pid";
  d.WriteJobFile("long.toml", JobFile("long", kYearly,
                                      "[ -e " + Quoted(pid_file) + " ] || echo $$ > " +
                                          Quoted(pid_file) + "; exec sleep 600"));
  Reload(d);

  const RunResult first = Tq(d, {"jobs", "run", "long"});
  REQUIRE_MESSAGE(first.exit_code == 0, first.err);
  const std::string id = first.out.substr(0, first.out.find('\n'));
  REQUIRE(WaitState(d, id, "running"));
  WaitPidFile(pid_file);
  const nlohmann::json task = TaskJson(d, id);
  CHECK(task["job"] == "long");
  const nlohmann::json& labels = task["labels"];
  CHECK(std::find(labels.begin(), labels.end(), "job:long") != labels.end());

  const RunResult skipped = Tq(d, {"jobs", "run", "long"});
  CHECK(skipped.exit_code == 1);
  CHECK(skipped.out.empty());
  CHECK_MESSAGE(skipped.err.find("skipped") != std::string::npos, skipped.err);
  CHECK_MESSAGE(skipped.err.find("--force") != std::string::npos, skipped.err);
  const RunResult skipped_json = Tq(d, {"jobs", "run", "long", "--json"});
  CHECK(skipped_json.exit_code == 1);
  const nlohmann::json skip_reply = nlohmann::json::parse(skipped_json.out);
  CHECK(skip_reply["action"] == "skip");
  CHECK(skip_reply["task"].is_null());
  CHECK(JobRuns(d, "long").size() == 1);

  const RunResult forced = Tq(d, {"jobs", "run", "long", "--force"});
  REQUIRE_MESSAGE(forced.exit_code == 0, forced.err);
  const std::string second = forced.out.substr(0, forced.out.find('\n'));
  CHECK(second != id);
  REQUIRE(WaitState(d, second, "running"));
  CHECK(TaskState(d, id) == "running");
  CHECK(JobRuns(d, "long").size() == 2);

  for (const std::string& t : {id, second}) CHECK(Tq(d, {"cancel", t}).exit_code == 0);
}

TEST_CASE("tq jobs run refuses a job that does not exist and a name that cannot be one") {
  TestDaemon d;
  TQ_LOG_ON_FAILURE(d);
  const RunResult missing = Tq(d, {"jobs", "run", "nosuchjob"});
  CHECK(missing.exit_code == 4);
  CHECK_MESSAGE(missing.err.find("nosuchjob") != std::string::npos, missing.err);
  for (const std::string& name : {std::string(65, 'a'), std::string("a b"), std::string("\xff")}) {
    const RunResult bad = Tq(d, {"jobs", "run", name});
    CHECK(bad.exit_code == 2);
  }
}
