// kill -9 of tqd while a job fires every second (issue 11): each firing is stored with its task in
// one transaction, so after any number of kills every run of the job has its firing, no firing
// has two runs, no run's command ran twice, and the job goes on firing after each restart.
#include <doctest/doctest.h>
#include <sqlite3.h>

#include <fstream>
#include <set>
#include <string>

#include "support/jobs.h"
#include "support/test_daemon.h"

using namespace tqtest;

namespace {

// The single integer `sql` yields from the store at `path`, opened read-only.
long long QueryInt(const std::string& path, const std::string& sql) {
  sqlite3* db = nullptr;
  REQUIRE(sqlite3_open_v2(path.c_str(), &db, SQLITE_OPEN_READONLY, nullptr) == SQLITE_OK);
  sqlite3_stmt* stmt = nullptr;
  REQUIRE_MESSAGE(sqlite3_prepare_v2(db, sql.c_str(), -1, &stmt, nullptr) == SQLITE_OK,
                  sqlite3_errmsg(db));
  REQUIRE(sqlite3_step(stmt) == SQLITE_ROW);
  const long long value = sqlite3_column_int64(stmt, 0);
  sqlite3_finalize(stmt);
  sqlite3_close(db);
  return value;
}

}  // namespace

TEST_CASE("kill -9 of tqd while a job fires: no firing runs twice and firing resumes" *
          doctest::test_suite("long")) {
  TestDaemon d;
  TQ_LOG_ON_FAILURE(d);
  const std::string ran = d.dir() + "/ran";  // outside the state directory
  d.WriteJobFile("tick.toml", JobFile("tick", "* * * * * *", "echo $TQ_TASK_ID >> '" + ran + "'",
                                      {"overlap = \"allow\"", "misfire = \"run_all\""}));
  Reload(d);

  for (int round = 0; round < 4; ++round) {
    CAPTURE(round);
    const size_t before = JobRuns(d, "tick").size();
    REQUIRE(WaitFor([&] { return JobRuns(d, "tick").size() > before; }));
    d.Kill9();
    d.Start();
    d.WaitReady();
  }
  const size_t before = JobRuns(d, "tick").size();
  REQUIRE(WaitFor([&] { return JobRuns(d, "tick").size() >= before + 2; }));
  REQUIRE(WaitFor([&] {
    for (const nlohmann::json& t : JobRuns(d, "tick"))
      if (t["state"] != "succeeded") return false;
    return true;
  }));
  d.Stop();

  const std::string db = d.state_dir() + "/tq.db";
  const long long runs = QueryInt(db, "SELECT count(*) FROM tasks WHERE job = 'tick'");
  CHECK(runs >= 6);
  // Every run came from exactly one firing, and each firing made at most one run.
  CHECK(
      QueryInt(db, "SELECT count(*) FROM job_firings WHERE job = 'tick' AND task_id IS NOT NULL") ==
      runs);
  CHECK(QueryInt(db, "SELECT count(DISTINCT task_id) FROM job_firings WHERE job = 'tick'") == runs);
  CHECK(QueryInt(db,
                 "SELECT count(*) FROM tasks t WHERE job = 'tick' AND NOT EXISTS "
                 "(SELECT 1 FROM job_firings f WHERE f.task_id = t.id)") == 0);

  // Each run's command ran once: re-attach adopted the runs a kill left running.
  std::ifstream in(ran);
  std::set<std::string> ids;
  std::string line;
  long long lines = 0;
  while (std::getline(in, line)) {
    ++lines;
    CHECK_MESSAGE(ids.insert(line).second, "task " << line << " ran twice");
  }
  CHECK(lines == runs);
}
