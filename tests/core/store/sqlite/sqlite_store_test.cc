#include "core/store/sqlite/sqlite_store.h"

#include <doctest/doctest.h>
#include <stdlib.h>

#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "core/store/sql/stored_bytes.h"
#include "core/store/sqlite/db.h"
#include "core/store/sqlite/test_util.h"
#include "support/temp_dir.h"

namespace tq {
namespace {

using namespace test;  // NOLINT: the shared helpers of the store's tests

TEST_CASE("identical environments are stored once") {
  TempDir dir("store");
  const std::string path = dir.File("tq.db");
  auto store = OpenSqlite(path);
  TaskSpec other_env = Spec({"x"});
  other_env.env = {"HOME=/root"};
  MustInsert(*store, kAlice, Spec({"one"}));
  MustInsert(*store, kBob, Spec({"two"}));
  MustInsert(*store, kAlice, other_env);
  MustInsert(*store, kAlice, other_env);

  Result<sqlite::Db> db = sqlite::Db::Open(path);
  REQUIRE(db.ok());
  CHECK(*db->QueryInt("count", "SELECT count(*) FROM envs") == 2);
  CHECK(*db->QueryInt("count", "SELECT count(DISTINCT env_hash) FROM tasks") == 2);
}

TEST_CASE("a reopened file-backed store keeps everything") {
  TempDir dir("store");
  const std::string path = dir.File("tq.db");
  TaskSpec spec = Spec({"printf", "\xff", ""}, "batch", 2);
  spec.labels = {"keep"};
  spec.stdin_data = "in";
  TaskId done = 0, waiting = 0;
  {
    auto store = OpenSqlite(path);
    done = MustInsert(*store, kAlice, spec);
    StartAndFinish(*store, done, TaskState::kSucceeded, 2000);
    TaskSpec later = spec;
    later.not_before = 90000;
    waiting = MustInsert(*store, kAlice, later);
  }
  auto store = OpenSqlite(path);
  Task task = MustGet(*store, done);
  CHECK(task.state == TaskState::kSucceeded);
  CHECK(task.attempts.size() == 1);
  CheckSpecEq(task.spec, spec);
  CHECK(*store->NextDue() == std::optional<WallMs>(90000));
  CHECK(QueueNames(*store) == std::vector<std::string>{"batch"});
  CHECK(MustInsert(*store, kAlice, spec) > waiting);
  CHECK_FALSE(std::filesystem::exists(path + ".bak-v1"));  // nothing was migrated
}

TEST_CASE("queue pause and concurrency are kept across a reopen") {
  TempDir dir("store");
  const std::string path = dir.File("tq.db");
  {
    auto store = OpenSqlite(path);
    MustInsert(*store, kAlice, Spec({"x"}, "default"));
    REQUIRE(store->SetQueuePaused("batch", true).ok());  // a queue that never held a task
    REQUIRE(store->SetQueueConcurrency("default", 4).ok());
    REQUIRE(store->SetQueueConcurrency("cron", 1).ok());
    REQUIRE(store->SetQueueConcurrency("cron", std::nullopt).ok());
    Status negative = store->SetQueueConcurrency("default", -1);
    CHECK(negative.code() == ErrorCode::kInvalid);
    CHECK(negative.field() == "concurrency");
  }
  auto store = OpenSqlite(path);
  Result<std::vector<QueueState>> queues = store->QueueStates();
  REQUIRE(queues.ok());
  // "cron", its only setting cleared and no task in it, is as good as a queue never made.
  REQUIRE(queues->size() == 2);
  const struct {
    const char* name;
    bool paused;
    std::optional<int> concurrency;
  } kWant[] = {{"batch", true, std::nullopt}, {"default", false, 4}};
  for (size_t i = 0; i < queues->size(); ++i) {
    CAPTURE(i);
    CHECK((*queues)[i].name == kWant[i].name);
    CHECK((*queues)[i].paused == kWant[i].paused);
    CHECK((*queues)[i].concurrency == kWant[i].concurrency);
  }
  CHECK(QueueNames(*store) == std::vector<std::string>{"batch", "default"});
  REQUIRE(store->SetQueuePaused("batch", false).ok());  // "batch" goes as "cron" did
  MustInsert(*store, kAlice, Spec({"y"}, "default"));   // a submit keeps the settings
  CHECK(QueueNames(*store) == std::vector<std::string>{"default"});
  CHECK((*store->QueueStates())[0].concurrency == std::optional<int>(4));
}

TEST_CASE("exit-code lists round-trip through their text form") {
  const struct {
    std::vector<int> codes;
    const char* text;
  } kCases[] = {{{}, ""}, {{75}, "75"}, {{75, 0, -1, 255}, "75,0,-1,255"}};
  for (const auto& c : kCases) {
    CAPTURE(c.text);
    CHECK(sql::EncodeInts(c.codes) == c.text);
    std::vector<int> back{99};
    REQUIRE(sql::DecodeInts(c.text, &back));
    CHECK(back == c.codes);
  }
  for (const char* bad : {",", "1,", ",1", "1,,2", " 1", "1 ", "x", "+1", "99999999999", "1;2"}) {
    CAPTURE(bad);
    std::vector<int> out;
    CHECK_FALSE(sql::DecodeInts(bad, &out));
  }
}

bool PlanUsesIndex(const std::string& plan, const std::string& index) {
  return plan.find("USING INDEX " + index) != std::string::npos ||
         plan.find("USING COVERING INDEX " + index) != std::string::npos;
}

bool ScansTasks(const std::string& plan) {
  return plan.find("SCAN tasks\n") != std::string::npos ||
         plan.find("SCAN TABLE tasks\n") != std::string::npos;
}

void CheckPlans(SqliteStore& store) {
  using Q = SqliteStore::PlannedQuery;
  const struct {
    Q query;
    const char* index;
  } kCases[] = {
      {Q::kFirstReadyByPriority, "tasks_ready_by_priority"},
      {Q::kFirstReadyOldest, "tasks_ready_by_id"},
      {Q::kReadyQueues, "tasks_ready_by_id"},
      {Q::kReadyOwners, "tasks_ready_by_id"},
      {Q::kPendingOfOwner, "tasks_pending_by_owner"},
      {Q::kPromoteDue, "tasks_delayed"},
      {Q::kNextDue, "tasks_delayed"},
      {Q::kKeyLookup, "tasks_by_key"},
      {Q::kPendingTtlDue, "tasks_pending_ttl"},
      {Q::kNextPendingTtl, "tasks_pending_ttl"},
      {Q::kSucceededDue, "tasks_succeeded"},
      {Q::kOldestSucceeded, "tasks_succeeded"},
      {Q::kEndedDue, "tasks_ended"},
      {Q::kOldestEnded, "tasks_ended"},
      {Q::kPendingDependents, "task_deps_by_dep"},
      {Q::kFirstFittingByPriority, "tasks_ready_by_priority"},
      {Q::kFirstFittingOldest, "tasks_ready_by_id"},
      {Q::kReadyUnitRequests, "tasks_ready_uses"},
      {Q::kHeldUnits, "tasks_by_state"},
      {Q::kReleaseDependents, "task_deps_by_dep"},
  };
  for (const auto& c : kCases) {
    Result<std::string> plan = store.QueryPlan(c.query);
    REQUIRE_MESSAGE(plan.ok(), plan.status().message());
    CAPTURE(*plan);
    CHECK(PlanUsesIndex(*plan, c.index));
    CHECK_FALSE(ScansTasks(*plan));
    CHECK(plan->find("TEMP B-TREE") == std::string::npos);  // no sort of the whole set
  }
}

TEST_CASE("the hot queries walk their partial indexes") {
  auto store = OpenSqlite();
  CheckPlans(*store);
}

TEST_CASE("FirstReady stays on its index with 100k delayed tasks") {
  auto store = OpenSqlite();
  const int kDelayed = 100000;
  for (int i = 0; i < kDelayed; ++i) {
    TaskSpec spec = Spec({"x"}, i % 2 ? "default" : "other", 1 + i % 5);
    spec.not_before = 1000000 + i;
    MustInsert(*store, kAlice, spec, 1000);
  }
  TaskId low = MustInsert(*store, kAlice, Spec({"low"}, "default", 5), 1000);
  TaskId high = MustInsert(*store, kAlice, Spec({"high"}, "default", 1), 1000);
  CHECK(Ready(*store, "default", ReadyOrder::kHighestPriority) == high);
  CHECK(Ready(*store, "default", ReadyOrder::kOldest) == low);
  CHECK_FALSE(Ready(*store, "other", ReadyOrder::kOldest).has_value());
  CHECK(*store->NextDue() == std::optional<WallMs>(1000000));
  CHECK(*store->PromoteDue(1000000 + 9, 1000) == 10);
  CheckPlans(*store);
}

}  // namespace
}  // namespace tq
