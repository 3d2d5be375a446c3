// The SQLite store's cron jobs beyond the interface: what survives a reopen, the firing rows kept
// bounded, a full disk during a firing, the index plans of the job queries, and the scale of
// 10,000 jobs.
#include <doctest/doctest.h>

#include <chrono>
#include <optional>
#include <string>
#include <vector>

#include "core/store/sqlite/db.h"
#include "core/store/sqlite/sqlite_store.h"
#include "core/store/sqlite/test_util.h"
#include "support/temp_dir.h"

namespace tq {
namespace {

using namespace test;  // NOLINT: the shared helpers of the store's tests

// `sql`'s single integer, read through a second connection to the store's file.
int64_t CountRows(const std::string& path, const std::string& sql) {
  Result<sqlite::Db> db = sqlite::Db::Open(path);
  REQUIRE_MESSAGE(db.ok(), db.status().message());
  Result<int64_t> n = db->QueryInt("count", sql);
  REQUIRE_MESSAGE(n.ok(), n.status().message());
  return *n;
}

TEST_CASE("jobs, firings, files and held runs survive a reopen") {
  TempDir dir("jobs");
  const std::string path = dir.File("tq.db");
  TaskId running = 0;
  TaskId held = 0;
  {
    auto store = OpenSqlite(path);
    REQUIRE(store->AddJobs({"a", "b"}, 100).ok());
    REQUIRE(store->SetJobDisabled("b", true).ok());
    REQUIRE(MustFire(*store, {"a", 1000, ""}, std::nullopt, 1000).fired);
    REQUIRE(MustFire(*store, {"boot", 1000, "boot-1"}, std::nullopt, 1000).fired);
    REQUIRE(store->SaveJobFiles({{"/j/a.toml", "[[job]]", 900}}).ok());
    running = *MustFire(*store, {"x", 1000, ""}, JobRun("x", true), 1000).task;
    MustStart(*store, running, 1000);
    held = *MustFire(*store, {"x", 2000, ""}, JobRun("x", true), 2000).task;
  }
  auto store = OpenSqlite(path);
  std::vector<JobRecord> records = MustJobRecords(*store);
  REQUIRE(records.size() == 4);
  CHECK(records[0].job == "a");
  CHECK(records[0].first_seen == 100);
  CHECK(records[0].last_fired == std::optional<WallMs>(1000));
  CHECK(records[1].job == "b");
  CHECK(records[1].disabled);
  CHECK(records[2].job == "boot");
  CHECK(records[2].boot_id == "boot-1");
  CHECK(records[3].job == "x");
  CHECK(records[3].last_task == std::optional<TaskId>(held));
  CHECK_FALSE(MustFire(*store, {"a", 1000, ""}, std::nullopt, 3000).fired);
  CHECK_FALSE(MustFire(*store, {"boot", 3000, "boot-1"}, std::nullopt, 3000).fired);
  Result<std::vector<StoredJobFile>> files = store->JobFiles();
  REQUIRE(files.ok());
  REQUIRE(files->size() == 1);
  CHECK((*files)[0].text == "[[job]]");

  // The held run is still held, and is released when the running one ends.
  CHECK_FALSE(Ready(*store, "cron").has_value());
  CHECK(*store->PromoteDue(9000, 10) == 0);
  Result<std::vector<TaskId>> ended =
      store->FinishAttempt(running, 1, Exited(3000, 0), TaskState::kSucceeded, TaskReason::kExit);
  REQUIRE(ended.ok());
  CHECK(Ready(*store, "cron") == held);
}

TEST_CASE("firing rows stay bounded: task-less ones give way, purged tasks take theirs") {
  TempDir dir("jobs");
  const std::string path = dir.File("tq.db");
  auto store = OpenSqlite(path);
  for (WallMs t = 1; t <= 100; ++t) {
    REQUIRE(MustFire(*store, {"skip", t * 1000, ""}, std::nullopt, t * 1000).fired);
  }
  CHECK(CountRows(path, "SELECT count(*) FROM job_firings WHERE job = 'skip'") == 1);
  CHECK(CountRows(path, "SELECT max(scheduled) FROM job_firings WHERE job = 'skip'") == 100000);

  std::vector<TaskId> tasks;
  for (WallMs t = 1; t <= 5; ++t) {
    tasks.push_back(*MustFire(*store, {"run", t * 1000, ""}, JobRun("run", false), t * 1000).task);
  }
  REQUIRE(MustFire(*store, {"run", 6000, ""}, std::nullopt, 6000).fired);
  CHECK(CountRows(path, "SELECT count(*) FROM job_firings WHERE job = 'run'") == 6);
  for (TaskId id : {tasks[0], tasks[1]}) StartAndFinish(*store, id, TaskState::kFailed, 7000);
  Result<std::vector<TaskId>> purged = store->PurgeEnded(8000, 10);
  REQUIRE(purged.ok());
  CHECK(purged->size() == 2);
  CHECK(CountRows(path, "SELECT count(*) FROM job_firings WHERE job = 'run'") == 4);
  CHECK(CountRows(path, "PRAGMA foreign_key_check") == 0);
}

TEST_CASE("a full disk during a firing records neither the firing nor its task") {
  auto store = OpenSqlite();
  REQUIRE(store->AddJobs({"big"}, 100).ok());
  REQUIRE(MustFire(*store, {"big", 1000, ""}, JobRun("big", true), 1000).fired);
  REQUIRE(store->LimitGrowth(4).ok());
  TaskSpec huge = JobRun("big", true);
  huge.argv.push_back(std::string(1 << 20, 'x'));
  Result<FireOutcome> out = store->Fire({"big", 2000, ""}, kAlice, huge, 2000);
  REQUIRE_FALSE(out.ok());
  CHECK(out.status().fault() == StoreFault::kPermanent);

  std::vector<JobRecord> records = MustJobRecords(*store);
  REQUIRE(records.size() == 1);
  CHECK(records[0].last_fired == std::optional<WallMs>(1000));
  CHECK(records[0].last_task == std::optional<TaskId>(1));
  CHECK(MustGet(*store, 1).state == TaskState::kPending);
  CHECK_FALSE(store->Get(2).ok());

  // Once there is room the same time fires, exactly once.
  REQUIRE(store->LimitGrowth(100000).ok());
  FireOutcome again = MustFire(*store, {"big", 2000, ""}, huge, 2100);
  CHECK(again.fired);
  REQUIRE(again.task.has_value());
  CHECK_FALSE(MustFire(*store, {"big", 2000, ""}, huge, 2200).fired);
}

bool UsesIndex(const std::string& plan, const std::string& index) {
  return plan.find("USING INDEX " + index) != std::string::npos ||
         plan.find("USING COVERING INDEX " + index) != std::string::npos;
}

TEST_CASE("the job queries and the held rule walk tasks_job_runs") {
  using Q = SqliteStore::PlannedQuery;
  auto store = OpenSqlite();
  for (Q query : {Q::kRunsOf, Q::kJobRunning, Q::kHoldRuns, Q::kReleaseRuns}) {
    Result<std::string> plan = store->QueryPlan(query);
    REQUIRE_MESSAGE(plan.ok(), plan.status().message());
    CAPTURE(*plan);
    CHECK(UsesIndex(*plan, "tasks_job_runs"));
    CHECK(plan->find("SCAN tasks") == std::string::npos);
    CHECK(plan->find("TEMP B-TREE") == std::string::npos);
  }
}

TEST_CASE("held runs among 20k finished runs stay off the due set") {
  auto store = OpenSqlite();
  // Many ended runs of the job and many held ones: neither PromoteDue nor NextDue finds the held.
  // (The ended runs go in as runs that may overlap: a batch of exclusive runs of one job asks
  // "is another run in flight" once per run, across the runs before it.)
  std::vector<TaskSpec> ended(20000, JobRun("busy", false));
  Result<std::vector<TaskId>> ids = store->SubmitBatch(kAlice, ended, 1000);
  REQUIRE(ids.ok());
  REQUIRE(store->EndPendingAll(*ids, TaskState::kCancelled, TaskReason::kCancelled, 1000).ok());
  TaskId runner = MustInsert(*store, kAlice, JobRun("busy", true), 1000);
  MustStart(*store, runner, 1000);
  std::vector<TaskSpec> held(1000, JobRun("busy", true));
  REQUIRE(store->SubmitBatch(kAlice, held, 1000).ok());
  CHECK(*store->PromoteDue(5000, 100) == 0);
  CHECK_FALSE(store->NextDue()->has_value());
  CHECK_FALSE(Ready(*store, "cron").has_value());
  Result<JobRuns> runs = store->RunsOf("busy");
  REQUIRE(runs.ok());
  CHECK(runs->pending.size() == 1000);
  CHECK(runs->running == std::vector<TaskId>{runner});
  REQUIRE(store->FinishAttempt(runner, 1, Exited(2000, 0), TaskState::kSucceeded, TaskReason::kExit)
              .ok());
  CHECK(Ready(*store, "cron").has_value());
}

TEST_CASE("a 4 MiB job file under a path that is not UTF-8 round-trips byte for byte") {
  auto store = OpenSqlite();
  std::string text(4 << 20, '\0');
  for (size_t i = 0; i < text.size(); ++i) text[i] = static_cast<char>(i * 131 % 256);
  const std::string path = "/etc/tq/jobs.d/\xff\xfe.toml";
  REQUIRE(store->SaveJobFiles({{path, text, 1}}).ok());
  Result<std::vector<StoredJobFile>> files = store->JobFiles();
  REQUIRE(files.ok());
  REQUIRE(files->size() == 1);
  CHECK((*files)[0].path == path);
  CHECK((*files)[0].text == text);
  REQUIRE(store->ForgetJobFiles({path}).ok());
  CHECK(store->JobFiles()->empty());
}

TEST_CASE("10000 jobs are added and listed in one go") {
  auto store = OpenSqlite();
  std::vector<std::string> names;
  for (int i = 0; i < 10000; ++i) names.push_back("job-" + std::to_string(i));
  const auto start = std::chrono::steady_clock::now();
  REQUIRE(store->AddJobs(names, 100).ok());
  const auto added = std::chrono::steady_clock::now();
  std::vector<JobRecord> records = MustJobRecords(*store);
  const auto listed = std::chrono::steady_clock::now();
  CHECK(records.size() == 10000);
  REQUIRE(store->AddJobs(names, 200).ok());
  CHECK(MustJobRecords(*store)[0].first_seen == 100);
  using std::chrono::duration_cast;
  using std::chrono::microseconds;
  MESSAGE("AddJobs of 10000: " << duration_cast<microseconds>(added - start).count()
                               << " us, JobRecords of 10000: "
                               << duration_cast<microseconds>(listed - added).count() << " us");
}

}  // namespace
}  // namespace tq
