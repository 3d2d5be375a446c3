#include "core/migrations.h"

#include <doctest/doctest.h>
#include <stdlib.h>

#include <filesystem>
#include <fstream>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include "core/sqlite_db.h"
#include "core/sqlite_store.h"
#include "support/temp_dir.h"

#ifndef TQ_TEST_DATA_DIR
#error "TQ_TEST_DATA_DIR must name the tests/data directory"
#endif

namespace tq {
namespace {

sqlite::Db MustOpenDb(const std::string& path) {
  Result<sqlite::Db> db = sqlite::Db::Open(path);
  REQUIRE_MESSAGE(db.ok(), db.status().message());
  return std::move(*db);
}

/// Creates `path` from the checked-in v1 fixture.
void LoadFixture(const std::string& path) {
  std::ifstream in(std::string(TQ_TEST_DATA_DIR) + "/schema_v1.sql");
  REQUIRE(in.good());
  std::stringstream sql;
  sql << in.rdbuf();
  sqlite::Db db = MustOpenDb(path);
  Status s = db.Exec("load fixture", sql.str());
  REQUIRE_MESSAGE(s.ok(), s.message());
}

int64_t QueryInt(const std::string& path, const std::string& sql) {
  sqlite::Db db = MustOpenDb(path);
  Result<int64_t> v = db.QueryInt("query", sql);
  REQUIRE_MESSAGE(v.ok(), v.status().message());
  return *v;
}

std::vector<std::string> Rows(sqlite::Db& db, const std::string& sql) {
  Result<sqlite::Stmt> stmt = sqlite::Stmt::Prepare(db, "rows", sql);
  REQUIRE_MESSAGE(stmt.ok(), stmt.status().message());
  sqlite::Query q(*stmt);
  std::vector<std::string> rows;
  for (;;) {
    Result<bool> row = q.Step();
    REQUIRE(row.ok());
    if (!*row) return rows;
    rows.push_back(q.Text(0));
  }
}

std::string CollapseSpaces(const std::string& s) {
  std::string out;
  for (char c : s) {
    bool space = c == ' ' || c == '\n' || c == '\t';
    if (space && (out.empty() || out.back() == ' ')) continue;
    out.push_back(space ? ' ' : c);
  }
  return out;
}

/// Every table's columns (name, type, not-null, default, key) and every index's definition.
std::vector<std::string> SchemaShape(sqlite::Db& db) {
  std::vector<std::string> shape =
      Rows(db,
           "SELECT m.name || '.' || p.name || ' ' || p.type || ' ' || p.\"notnull\" || ' ' || "
           "ifnull(p.dflt_value, '-') || ' ' || p.pk FROM sqlite_master AS m "
           "JOIN pragma_table_xinfo(m.name) AS p WHERE m.type = 'table' ORDER BY m.name, p.cid");
  for (const std::string& index : Rows(db,
                                       "SELECT name || ': ' || ifnull(sql, 'auto') FROM "
                                       "sqlite_master WHERE type = 'index' ORDER BY name")) {
    shape.push_back(CollapseSpaces(index));
  }
  return shape;
}

const Owner kAlice{1000, 1000, "alice"};

TEST_CASE("a v1 database with rows migrates to the current schema") {
  TempDir dir("migrate");
  const std::string path = dir.File("tq.db");
  LoadFixture(path);
  REQUIRE(QueryInt(path, "PRAGMA user_version") == 1);

  Result<std::unique_ptr<Store>> opened = OpenSqliteStore(path, true);
  REQUIRE_MESSAGE(opened.ok(), opened.status().message());
  Store& store = **opened;

  CHECK(QueryInt(path, "PRAGMA user_version") == CurrentSchemaVersion());
  const std::string backup = BackupPath(path, 1);
  CHECK(backup == path + ".bak-v1");
  REQUIRE(std::filesystem::exists(backup));
  CHECK(QueryInt(backup, "PRAGMA user_version") == 1);
  CHECK(QueryInt(backup, "SELECT count(*) FROM tasks WHERE labels <> '[]'") == 3);

  Result<Task> one = store.Get(1);
  REQUIRE_MESSAGE(one.ok(), one.status().message());
  CHECK(one->spec.argv == std::vector<std::string>{"echo", "hi"});
  CHECK(one->spec.env == std::vector<std::string>{"HOME=/home/alice", "PATH=/usr/bin:/bin"});
  CHECK(one->spec.labels == std::vector<std::string>{"nightly", "job:report"});
  CHECK(one->state == TaskState::kSucceeded);
  REQUIRE(one->attempts.size() == 1);
  CHECK(one->attempts[0].pid == 4242);
  CHECK(one->attempts[0].reason == AttemptReason::kExit);
  CHECK(one->attempts[0].max_rss_kb == 0);  // not recorded before v2

  Result<Task> two = store.Get(2);
  REQUIRE(two.ok());
  CHECK(two->spec.argv == std::vector<std::string>{"printf", "\xff", ""});
  CHECK(two->spec.stdin_data == std::optional<std::string>("abc\n"));
  CHECK(two->spec.after == std::vector<TaskId>{1});
  CHECK(two->spec.timeout_ms == 60000);

  Result<Task> three = store.Get(3);
  REQUIRE(three.ok());
  CHECK(three->owner.name == "bob");
  CHECK(three->spec.argv.empty());
  CHECK(three->spec.shell == std::optional<std::string>("sleep 10"));
  CHECK(three->spec.env.empty());
  CHECK(three->spec.clean_env);
  CHECK(three->spec.labels.empty());

  auto list_ids = [&store](const char* label) {
    ListFilter f;
    f.label = label;
    Result<std::vector<Task>> tasks = store.List(f);
    REQUIRE(tasks.ok());
    std::vector<TaskId> ids;
    for (const Task& t : *tasks) ids.push_back(t.id);
    return ids;
  };
  CHECK(list_ids("nightly") == std::vector<TaskId>{2, 1});
  CHECK(list_ids("job:report") == std::vector<TaskId>{4, 1});

  Result<std::optional<Candidate>> ready = store.FirstReady("batch", ReadyOrder::kOldest);
  REQUIRE(ready.ok());
  CHECK((*ready)->id == 2);
  CHECK(*store.NextDue() == std::optional<WallMs>(9999999999999));
  CHECK(*store.Queues() == std::vector<std::string>{"batch", "default"});

  // New tasks continue the ids and find the environment stored by v1 under the same digest.
  TaskSpec spec;
  spec.argv = {"true"};
  spec.env = {"HOME=/home/alice", "PATH=/usr/bin:/bin"};
  Result<TaskId> id = store.Insert(kAlice, spec, 7000);
  REQUIRE(id.ok());
  CHECK(*id == 5);
  CHECK(QueryInt(path, "SELECT count(*) FROM envs") == 2);
}

TEST_CASE("the v1 fixture has exactly the schema migration 1 creates") {
  TempDir dir("migrate");
  const std::string fixture = dir.File("fixture.db");
  LoadFixture(fixture);
  sqlite::Db fresh = MustOpenDb(dir.File("fresh.db"));
  REQUIRE(Migrate(fresh, dir.File("fresh.db"), 1).ok());
  sqlite::Db loaded = MustOpenDb(fixture);
  CHECK(SchemaShape(loaded) == SchemaShape(fresh));
  CHECK(*fresh.QueryInt("version", "PRAGMA user_version") == 1);
}

TEST_CASE("a fresh database starts at the current version without a backup") {
  TempDir dir("migrate");
  const std::string path = dir.File("tq.db");
  {
    Result<std::unique_ptr<Store>> store = OpenSqliteStore(path, false);
    REQUIRE_MESSAGE(store.ok(), store.status().message());
  }
  CHECK(QueryInt(path, "PRAGMA user_version") == CurrentSchemaVersion());
  Result<std::unique_ptr<Store>> again = OpenSqliteStore(path, false);
  REQUIRE(again.ok());
  for (const auto& entry : std::filesystem::directory_iterator(dir.path)) {
    CHECK(entry.path().filename().string().find(".bak-v") == std::string::npos);
  }
}

TEST_CASE("a database newer than this binary is refused and left alone") {
  TempDir dir("migrate");
  const std::string path = dir.File("tq.db");
  { REQUIRE(OpenSqliteStore(path, true).ok()); }
  const int newer = CurrentSchemaVersion() + 1;
  {
    sqlite::Db db = MustOpenDb(path);
    REQUIRE(db.Exec("bump", "PRAGMA user_version = " + std::to_string(newer)).ok());
  }
  Result<std::unique_ptr<Store>> store = OpenSqliteStore(path, true);
  REQUIRE_FALSE(store.ok());
  CHECK(store.status().code() == ErrorCode::kInternal);
  CHECK(store.status().message() == "database schema v" + std::to_string(newer) +
                                        " is newer than this tqd supports (v" +
                                        std::to_string(CurrentSchemaVersion()) + ")");
  CHECK(QueryInt(path, "PRAGMA user_version") == newer);
  CHECK_FALSE(std::filesystem::exists(BackupPath(path, newer)));
}

TEST_CASE("a non-empty database without a version is not taken for a tq store") {
  TempDir dir("migrate");
  const std::string path = dir.File("other.db");
  {
    sqlite::Db db = MustOpenDb(path);
    REQUIRE(db.Exec("create", "CREATE TABLE photos (id INTEGER PRIMARY KEY)").ok());
  }
  Result<std::unique_ptr<Store>> store = OpenSqliteStore(path, true);
  REQUIRE_FALSE(store.ok());
  CHECK(store.status().message().find("not a tq database") != std::string::npos);
  CHECK(QueryInt(path, "SELECT count(*) FROM sqlite_master WHERE name = 'tasks'") == 0);
}

TEST_CASE("a failed migration rolls back and leaves the old version and its backup") {
  TempDir dir("migrate");
  const std::string path = dir.File("tq.db");
  LoadFixture(path);
  {
    sqlite::Db db = MustOpenDb(path);
    REQUIRE(db.Exec("break", "UPDATE tasks SET labels = '[\"unterminated' WHERE id = 4").ok());
  }
  Result<std::unique_ptr<Store>> store = OpenSqliteStore(path, true);
  REQUIRE_FALSE(store.ok());
  CHECK(store.status().message().find("store: migration to v2 failed: ") == 0);
  CHECK(QueryInt(path, "PRAGMA user_version") == 1);
  CHECK(QueryInt(path, "SELECT count(*) FROM sqlite_master WHERE name = 'task_labels'") == 0);
  CHECK(QueryInt(path, "SELECT count(*) FROM pragma_table_info('tasks') WHERE name = 'labels'") ==
        1);
  CHECK(std::filesystem::exists(BackupPath(path, 1)));
  CHECK_FALSE(std::filesystem::exists(BackupPath(path, 1) + ".tmp"));
}

}  // namespace
}  // namespace tq
