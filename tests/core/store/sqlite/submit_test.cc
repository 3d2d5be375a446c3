// Submitting to the SQLite store where files matter: a replace leaves no stale rows, and two
// connections racing with one key end with exactly one task.
#include <doctest/doctest.h>

#include <algorithm>
#include <barrier>
#include <string>
#include <thread>
#include <vector>

#include "core/store/sqlite/db.h"
#include "core/store/sqlite/test_util.h"
#include "support/temp_dir.h"

namespace tq {
namespace {

using namespace test;  // NOLINT: the shared helpers of the store's tests

TEST_CASE("a replace keeps the id, rewrites the request and clears the attempts") {
  TempDir dir("store");
  const std::string path = dir.File("tq.db");
  auto store = OpenSqlite(path);
  TaskId dep = MustInsert(*store, kAlice, Spec({"dep"}));
  StartAndFinish(*store, dep, TaskState::kSucceeded, 1000);

  TaskSpec first = Keyed("nightly", 7, {"first"});
  first.retry.retries = 1;
  first.labels = {"old"};
  first.env = {"ONLY_THE_FIRST=1"};
  const TaskId id = MustSubmit(*store, kAlice, first, 2000).id;
  MustStart(*store, id, 2100);
  REQUIRE(store->RetryLater(id, 1, Exited(2200, 1), 2200, 4).ok());
  MustStart(*store, id, 2300);
  AttemptOutcome killed = Exited(2400, -1);
  killed.reason = AttemptReason::kSignal;
  killed.signal = 9;
  REQUIRE(store->FinishAttempt(id, 2, killed, TaskState::kFailed, TaskReason::kSignal).ok());
  REQUIRE(MustGet(*store, id).attempts.size() == 2);

  TaskSpec second = Keyed("nightly", 7, {"second", ""});
  second.queue = "batch";
  second.priority = 2;
  second.labels = {"new", "two"};
  second.after = {dep};
  second.pending_ttl_ms = 60000;
  second.retry.retries = 3;
  second.retry.no_retry_on_exit = {2, 64};
  SubmitOutcome out = MustSubmit(*store, kAlice, second, 50000);
  CHECK(out.id == id);
  CHECK(out.inserted);
  CHECK(out.ended.empty());

  Task task = MustGet(*store, id);
  CheckSpecEq(task.spec, second);
  CHECK(task.state == TaskState::kPending);
  CHECK(task.reason == TaskReason::kNone);
  CHECK(task.exit_code == -1);
  CHECK(task.signal == 0);
  CHECK(task.finished == 0);
  CHECK(task.created == 50000);
  CHECK(task.attempt_count == 0);
  CHECK(task.attempts.empty());
  CHECK(*store->FailedSinceQueued(id) == 0);
  CHECK(*store->NextPendingTtl() == std::optional<WallMs>(110000));
  CHECK(Ready(*store, "batch") == id);
  Result<std::optional<Candidate>> c = store->FirstReady("batch", ReadyOrder::kHighestPriority);
  CHECK((*c)->priority == 2);  // the demotion of the old request is gone
  CHECK(MustStart(*store, id, 50100) == 1);

  // The first request's environment went with it; the one dep shares stays.
  Result<sqlite::Db> db = sqlite::Db::Open(path);
  REQUIRE(db.ok());
  CHECK(*db->QueryInt("count", "SELECT count(*) FROM envs") == 1);
  CHECK(*db->QueryInt("count",
                      "SELECT count(*) FROM attempts WHERE task_id = " + std::to_string(id)) == 1);
}

TEST_CASE("two connections racing with one key and version end with exactly one task") {
  TempDir dir("store");
  const std::string path = dir.File("tq.db");
  auto first = OpenSqlite(path);
  auto second = OpenSqlite(path);
  constexpr int kRounds = 200;
  std::barrier start(2);
  auto race = [&](SqliteStore* store, std::vector<TaskId>* ids) {
    for (int round = 0; round < kRounds; ++round) {
      start.arrive_and_wait();  // both submit this round's key at once
      Result<SubmitOutcome> out =
          store->Submit(kAlice, Keyed("k" + std::to_string(round), 1), 1000 + round, false);
      ids->push_back(out.ok() ? out->id : -1);
    }
  };
  std::vector<TaskId> a, b;
  std::thread other(race, second.get(), &b);
  race(first.get(), &a);
  other.join();
  CHECK(a == b);  // each round: one inserted, the other replaced it in place
  ListFilter all;
  all.limit = 0;
  CHECK(first->List(all)->size() == static_cast<size_t>(kRounds));
  CHECK(std::count(a.begin(), a.end(), -1) == 0);
}

}  // namespace
}  // namespace tq
