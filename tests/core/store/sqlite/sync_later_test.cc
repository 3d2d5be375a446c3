// Which commits wait for the disk (CommitSync): with durability "full" every one but the
// transaction asked to leave its sync to a later commit; with "normal" none. Read from SQLite's
// own setting inside each transaction, which is what its COMMIT obeys.
#include <doctest/doctest.h>

#include <memory>
#include <string>

#include "core/store/sqlite/db.h"
#include "core/store/sqlite/sqlite_store.h"
#include "core/store/sqlite/test_util.h"
#include "support/temp_dir.h"

namespace tq {
namespace {

using namespace test;  // NOLINT: the shared helpers of the store's tests

constexpr int64_t kNormal = 1;
constexpr int64_t kFull = 2;

// SQLite's synchronous level inside a transaction begun on `db`, which is then committed.
int64_t LevelOfNextCommit(sqlite::Db& db) {
  REQUIRE(db.Begin().ok());
  Result<int64_t> level = db.QueryInt("read synchronous", "PRAGMA synchronous");
  REQUIRE(level.ok());
  REQUIRE(db.Commit().ok());
  return *level;
}

TEST_CASE("with durability full, only the transaction after SyncLater commits unsynced") {
  TempDir dir("sync-later");
  Result<sqlite::Db> db = sqlite::Db::Open(dir.File("tq.db"));
  REQUIRE(db.ok());
  REQUIRE(db->Exec("journal", "PRAGMA journal_mode = WAL").ok());
  REQUIRE(db->SetDurability(true).ok());
  CHECK(LevelOfNextCommit(*db) == kFull);
  db->SyncLater();
  CHECK(LevelOfNextCommit(*db) == kNormal);
  CHECK(LevelOfNextCommit(*db) == kFull);  // one transaction only
  db->SyncLater();
  db->Rollback();  // no transaction: the request waits for the next Begin
  CHECK(LevelOfNextCommit(*db) == kNormal);
  CHECK(LevelOfNextCommit(*db) == kFull);
}

TEST_CASE("with durability normal, no commit syncs, SyncLater or not") {
  TempDir dir("sync-later");
  Result<sqlite::Db> db = sqlite::Db::Open(dir.File("tq.db"));
  REQUIRE(db.ok());
  REQUIRE(db->SetDurability(false).ok());
  CHECK(LevelOfNextCommit(*db) == kNormal);
  db->SyncLater();
  CHECK(LevelOfNextCommit(*db) == kNormal);
  CHECK(LevelOfNextCommit(*db) == kNormal);
}

TEST_CASE("a store with durability full commits a kLater WriteTogether unsynced, all else synced") {
  TempDir dir("sync-later");
  Result<std::unique_ptr<SqliteStore>> opened =
      SqliteStore::Open(dir.File("tq.db"), /*durability_full=*/true);
  REQUIRE(opened.ok());
  SqliteStore& store = **opened;
  auto level_of = [&store](CommitSync sync) {
    int64_t level = 0;
    REQUIRE(store
                .WriteTogether(
                    [&] {
                      MustInsert(store, kAlice, Spec({"a"}));
                      Result<int64_t> read = store.SyncLevel();
                      REQUIRE(read.ok());
                      level = *read;
                      return Status::Ok();
                    },
                    sync)
                .ok());
    return level;
  };
  CHECK(level_of(CommitSync::kNow) == kFull);
  CHECK(level_of(CommitSync::kLater) == kNormal);
  CHECK(level_of(CommitSync::kNow) == kFull);
  REQUIRE(store.WriteTogether([&] { return Status::Invalid("turn", "undone"); }, CommitSync::kLater)
              .code() == ErrorCode::kInvalid);
  CHECK(level_of(CommitSync::kNow) == kFull);  // a rolled-back kLater leaves nothing behind
}

}  // namespace
}  // namespace tq
