// Faults of the SQLite store: errors typed as transient (a lock held elsewhere) or permanent (a
// full database, a corrupt row, a full disk in the middle of a group commit (SQLite rolls the whole
// transaction back by itself), produced deterministically with PRAGMA max_page_count.
#include <doctest/doctest.h>
#include <sqlite3.h>

#include <string>
#include <vector>

#include "core/store/sqlite/db.h"
#include "core/store/sqlite/sqlite_store.h"
#include "core/store/sqlite/test_util.h"
#include "support/temp_dir.h"

namespace tq {
namespace {

using namespace test;  // NOLINT: the shared helpers of the store's tests

// How many tasks `store` holds, of any state.
size_t CountStored(Store& store) {
  ListFilter all;
  all.limit = 0;
  Result<std::vector<Task>> tasks = store.List(all);
  REQUIRE_MESSAGE(tasks.ok(), tasks.status().message());
  return tasks->size();
}

// A request whose argv alone needs far more pages than LimitGrowth leaves.
TaskSpec Huge() {
  return Spec({"huge", std::string(1 << 20, 'x')});
}

TEST_CASE("store errors say whether trying again can help") {
  CHECK(sqlite::FaultOf(SQLITE_BUSY) == StoreFault::kTransient);
  CHECK(sqlite::FaultOf(SQLITE_LOCKED) == StoreFault::kTransient);
  CHECK(sqlite::FaultOf(SQLITE_IOERR_WRITE) == StoreFault::kTransient);
  CHECK(sqlite::FaultOf(SQLITE_FULL) == StoreFault::kPermanent);
  CHECK(sqlite::FaultOf(SQLITE_CONSTRAINT_UNIQUE) == StoreFault::kPermanent);
  CHECK(sqlite::FaultOf(SQLITE_CORRUPT) == StoreFault::kPermanent);
  CHECK(Status::Invalid("x", "y").fault() == StoreFault::kNone);
}

TEST_CASE("a full database refuses a submit with a permanent fault and stores nothing") {
  auto store = OpenSqlite();
  MustInsert(*store, kAlice, Spec({"before"}));
  REQUIRE(store->LimitGrowth(4).ok());
  Result<SubmitOutcome> out = store->Submit(kAlice, Huge(), 2000, false);
  REQUIRE_FALSE(out.ok());
  CHECK(out.status().fault() == StoreFault::kPermanent);
  CHECK(out.status().message().find("full") != std::string::npos);
  CHECK(CountStored(*store) == 1);
  // Reads go on while it is full.
  CHECK(store->Get(1).ok());
}

TEST_CASE("a write lock held by another connection is a transient fault") {
  TempDir dir("faults");
  const std::string path = dir.File("tq.db");
  { OpenSqlite(path); }
  Result<sqlite::Db> holder = sqlite::Db::Open(path);
  Result<sqlite::Db> other = sqlite::Db::Open(path);
  REQUIRE(holder.ok());
  REQUIRE(other.ok());
  REQUIRE(holder->Begin().ok());
  Status busy = other->Begin();  // no busy timeout on a bare connection: refused at once
  REQUIRE_FALSE(busy.ok());
  CHECK(busy.code() == ErrorCode::kInternal);
  CHECK(busy.fault() == StoreFault::kTransient);
  holder->Rollback();
  CHECK(other->Begin().ok());
  other->Rollback();
}

TEST_CASE("a corrupt row is a permanent fault, a missing one a refusal") {
  TempDir dir("faults");
  const std::string path = dir.File("tq.db");
  auto store = OpenSqlite(path);
  const TaskId id = MustInsert(*store, kAlice, Spec({"x"}));
  {
    Result<sqlite::Db> db = sqlite::Db::Open(path);
    REQUIRE(db.ok());
    REQUIRE(db->Exec("corrupt", "UPDATE tasks SET backoff = 'sideways'").ok());
  }
  Result<Task> task = store->Get(id);
  REQUIRE_FALSE(task.ok());
  CHECK(task.status().fault() == StoreFault::kPermanent);
  CHECK(task.status().message().find("corrupt") != std::string::npos);
  CHECK(store->Get(id + 1).status().fault() == StoreFault::kNone);
}

TEST_CASE("a full database fails a batch with a permanent fault, naming the entry") {
  auto store = OpenSqlite();
  REQUIRE(store->LimitGrowth(4).ok());
  Result<std::vector<TaskId>> ids = store->SubmitBatch(kAlice, {Spec({"a"}), Huge()}, 2000);
  REQUIRE_FALSE(ids.ok());
  CHECK(ids.status().fault() == StoreFault::kPermanent);
  CHECK(ids.status().message().find("entry 2: ") == 0);
  CHECK(CountStored(*store) == 0);
}

TEST_CASE("a full disk during a group commit: each request is stored if and only if acknowledged") {
  auto store = OpenSqlite();
  MustInsert(*store, kAlice, Spec({"before"}));
  REQUIRE(store->LimitGrowth(16).ok());
  const std::vector<SubmitItem> items = {
      {kAlice, Spec({"a"}), false},
      {kAlice, Huge(), false},
      {kAlice, Spec({"c"}), false},
      {kAlice, Keyed("k", 1), false},
  };
  const auto results = store->SubmitGroup(items, 2000);
  REQUIRE(results.size() == items.size());
  CHECK_FALSE(results[1].ok());
  size_t acknowledged = 0;
  for (size_t i = 0; i < results.size(); ++i) {
    CAPTURE(i);
    if (!results[i].ok()) {
      CHECK(results[i].status().message().find("full") != std::string::npos);
      CHECK(results[i].status().fault() == StoreFault::kPermanent);
      continue;
    }
    ++acknowledged;
    CHECK(MustGet(*store, results[i]->id).spec.argv == items[i].spec.argv);
  }
  CHECK(CountStored(*store) == 1 + acknowledged);  // nothing stored behind a refusal

  // Space returns: the same requests go through.
  REQUIRE(store->LimitGrowth(100000).ok());
  const auto again = store->SubmitGroup(items, 3000);
  for (const auto& r : again) CHECK_MESSAGE(r.ok(), r.status().message());
}

}  // namespace
}  // namespace tq
