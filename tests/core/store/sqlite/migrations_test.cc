#include "core/store/sqlite/migrations.h"

#include <doctest/doctest.h>
#include <stdlib.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include "core/store/sqlite/db.h"
#include "core/store/sqlite/open.h"
#include "core/store/sqlite/sqlite_store.h"
#include "core/store/sqlite/test_util.h"
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

/// Creates `path` from the checked-in fixture of schema `version` (tests/data/schema_vN.sql).
void LoadFixture(const std::string& path, int version = 1) {
  std::ifstream in(std::string(TQ_TEST_DATA_DIR) + "/schema_v" + std::to_string(version) + ".sql");
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

std::vector<std::string> MigratedRows(sqlite::Db& db, const std::string& sql) {
  Result<sql::Stmt> stmt = db.Prepare("rows", sql);
  REQUIRE_MESSAGE(stmt.ok(), stmt.status().message());
  sql::Query q(*stmt);
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
  std::vector<std::string> shape = MigratedRows(
      db,
      "SELECT m.name || '.' || p.name || ' ' || p.type || ' ' || p.\"notnull\" || ' ' || "
      "ifnull(p.dflt_value, '-') || ' ' || p.pk FROM sqlite_master AS m "
      "JOIN pragma_table_xinfo(m.name) AS p WHERE m.type = 'table' ORDER BY m.name, p.cid");
  for (const std::string& index :
       MigratedRows(db,
                    "SELECT name || ': ' || ifnull(sql, 'auto') FROM "
                    "sqlite_master WHERE type = 'index' ORDER BY name")) {
    shape.push_back(CollapseSpaces(index));
  }
  return shape;
}

using test::kAlice;

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
  CHECK(test::QueueNames(store) == std::vector<std::string>{"batch", "default"});

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
  CHECK(store.status().fault() == StoreFault::kPermanent);
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

TEST_CASE("the v2 fixture has exactly the schema migrations 1 and 2 create") {
  TempDir dir("migrate");
  const std::string fixture = dir.File("fixture.db");
  LoadFixture(fixture, 2);
  sqlite::Db fresh = MustOpenDb(dir.File("fresh.db"));
  REQUIRE(Migrate(fresh, dir.File("fresh.db"), 2).ok());
  sqlite::Db loaded = MustOpenDb(fixture);
  CHECK(SchemaShape(loaded) == SchemaShape(fresh));
  CHECK(*loaded.QueryInt("version", "PRAGMA user_version") == 2);
}

TEST_CASE("a migrated database has exactly the schema of a fresh one") {
  TempDir dir("migrate");
  sqlite::Db fresh = MustOpenDb(dir.File("fresh.db"));
  REQUIRE(Migrate(fresh, dir.File("fresh.db")).ok());
  for (int version : {1, 2, 3, 4, 5}) {
    CAPTURE(version);
    const std::string path = dir.File("v" + std::to_string(version) + ".db");
    LoadFixture(path, version);
    sqlite::Db db = MustOpenDb(path);
    Status s = Migrate(db, path);
    REQUIRE_MESSAGE(s.ok(), s.message());
    CHECK(SchemaShape(db) == SchemaShape(fresh));
  }
}

TEST_CASE("a v2 database with a task in every state migrates to the current schema") {
  TempDir dir("migrate");
  const std::string path = dir.File("tq.db");
  LoadFixture(path, 2);
  Result<std::unique_ptr<SqliteStore>> opened = SqliteStore::Open(path, true);
  REQUIRE_MESSAGE(opened.ok(), opened.status().message());
  SqliteStore& store = **opened;
  CHECK(QueryInt(path, "PRAGMA user_version") == CurrentSchemaVersion());
  REQUIRE(std::filesystem::exists(BackupPath(path, 2)));
  CHECK(QueryInt(BackupPath(path, 2), "PRAGMA user_version") == 2);

  // Every task gets the defaults: no key, version 0, no retries, no ttl, its priority as base.
  const struct {
    TaskId id;
    TaskState state;
    int priority;
    int failed_since_queued;
  } kTasks[] = {
      {1, TaskState::kSucceeded, 2, 1}, {2, TaskState::kFailed, 4, 1},
      {3, TaskState::kRunning, 3, 1},   {4, TaskState::kPending, 1, 0},
      {5, TaskState::kPending, 5, 0},   {6, TaskState::kPending, 3, 0},
      {7, TaskState::kCancelled, 3, 0},
  };
  const RetryPolicy defaults;
  for (const auto& t : kTasks) {
    CAPTURE(t.id);
    Result<Task> task = store.Get(t.id);
    REQUIRE_MESSAGE(task.ok(), task.status().message());
    CHECK(task->state == t.state);
    CHECK(task->spec.priority == t.priority);
    CHECK_FALSE(task->spec.key.has_value());
    CHECK(task->spec.version == 0);
    CHECK(task->spec.retry.retries == 0);
    CHECK(task->spec.retry.backoff == defaults.backoff);
    CHECK(task->spec.retry.base_ms == defaults.base_ms);
    CHECK(task->spec.retry.max_ms == defaults.max_ms);
    CHECK(task->spec.retry.jitter == defaults.jitter);
    CHECK(task->spec.retry.retry_on_exit.empty());
    CHECK(task->spec.retry.no_retry_on_exit.empty());
    CHECK(task->spec.pending_ttl_ms == 0);
    CHECK(*store.FailedSinceQueued(t.id) == t.failed_since_queued);
  }
  Task one = *store.Get(1);
  CHECK(one.spec.labels == std::vector<std::string>{"nightly", "job:report"});
  REQUIRE(one.attempts.size() == 1);
  CHECK(one.attempts[0].user_cpu_us == 120000);
  CHECK(one.attempts[0].max_rss_kb == 2048);

  // The new columns and indexes work on the old rows.
  CHECK_FALSE(store.NextPendingTtl()->has_value());
  CHECK(*store.OldestSucceeded() == std::optional<WallMs>(2000));
  CHECK(*store.OldestEnded() == std::optional<WallMs>(6000));
  Result<std::vector<QueueState>> queues = store.QueueStates();
  REQUIRE(queues.ok());
  REQUIRE(queues->size() == 2);
  for (const QueueState& q : *queues) {
    CHECK_FALSE(q.paused);
    CHECK_FALSE(q.concurrency.has_value());
  }
  CHECK((*store.FirstReady("batch", ReadyOrder::kOldest))->id == 4);
  CHECK(*store.NextDue() == std::optional<WallMs>(9999999999999));

  // The running attempt fails: the task waiting for it fails with it.
  Result<std::vector<TaskId>> ended =
      store.FinishAttempt(3, 1, test::Exited(8000, 1), TaskState::kFailed, TaskReason::kExit);
  REQUIRE_MESSAGE(ended.ok(), ended.status().message());
  CHECK(*ended == std::vector<TaskId>{6});
  CHECK(store.Get(6)->reason == TaskReason::kDependencyFailed);

  // Retention reaches old rows; keyed submits continue the ids.
  CHECK(*store.ExpireSucceeded(2000, 10) == std::vector<TaskId>{1});
  CHECK(*store.PurgeEnded(7400, 10) == std::vector<TaskId>{1, 2, 7});
  Result<SubmitOutcome> keyed = store.Submit(kAlice, test::Keyed("k", 1), 9000, false);
  REQUIRE(keyed.ok());
  CHECK(keyed->id == 8);
  CHECK(keyed->inserted);
}

TEST_CASE("a v3 database with a running attempt migrates to v4 and remembers stops from then on") {
  TempDir dir("migrate");
  const std::string path = dir.File("tq.db");
  LoadFixture(path, 3);
  Result<std::unique_ptr<SqliteStore>> opened = SqliteStore::Open(path, true);
  REQUIRE_MESSAGE(opened.ok(), opened.status().message());
  SqliteStore& store = **opened;
  CHECK(QueryInt(path, "PRAGMA user_version") == CurrentSchemaVersion());
  CHECK(QueryInt(BackupPath(path, 3), "PRAGMA user_version") == 3);

  // The attempt that was running before the upgrade has no stop; one recorded now is kept, and
  // a second request does not overwrite it.
  Result<std::vector<RunningAttempt>> running = store.RunningAttempts();
  REQUIRE(running.ok());
  REQUIRE(running->size() == 1);
  CHECK((*running)[0].task_id == 3);
  CHECK_FALSE((*running)[0].stop.has_value());
  REQUIRE(store.RecordStop(3, 1, {AttemptReason::kCancelled, TaskReason::kSuperseded, 7000}).ok());
  REQUIRE(store.RecordStop(3, 1, {AttemptReason::kTimeout, TaskReason::kTimeout, 7500}).ok());
  running = store.RunningAttempts();
  REQUIRE(running.ok());
  REQUIRE(running->size() == 1);
  REQUIRE((*running)[0].stop.has_value());
  CHECK((*running)[0].stop->attempt_reason == AttemptReason::kCancelled);
  CHECK((*running)[0].stop->task_reason == TaskReason::kSuperseded);
  CHECK((*running)[0].stop->at == 7000);
}

TEST_CASE("a failed migration to v3 leaves the v2 database as it was") {
  TempDir dir("migrate");
  const std::string path = dir.File("tq.db");
  LoadFixture(path, 2);
  {
    sqlite::Db db = MustOpenDb(path);  // a name migration 3 needs is taken
    REQUIRE(db.Exec("break", "CREATE INDEX tasks_by_key ON tasks(created)").ok());
  }
  Result<std::unique_ptr<Store>> store = OpenSqliteStore(path, true);
  REQUIRE_FALSE(store.ok());
  CHECK(store.status().message().find("store: migration to v3 failed: ") == 0);
  CHECK(QueryInt(path, "PRAGMA user_version") == 2);
  CHECK(QueryInt(path, "SELECT count(*) FROM pragma_table_info('tasks') WHERE name = 'task_key'") ==
        0);
  CHECK(QueryInt(path, "SELECT count(*) FROM pragma_table_info('queues')") == 1);
  CHECK(std::filesystem::exists(BackupPath(path, 2)));
}

TEST_CASE("the v4 fixture has exactly the schema migrations 1 to 4 create") {
  TempDir dir("migrate");
  const std::string fixture = dir.File("fixture.db");
  LoadFixture(fixture, 4);
  sqlite::Db fresh = MustOpenDb(dir.File("fresh.db"));
  REQUIRE(Migrate(fresh, dir.File("fresh.db"), 4).ok());
  sqlite::Db loaded = MustOpenDb(fixture);
  CHECK(SchemaShape(loaded) == SchemaShape(fresh));
  CHECK(*loaded.QueryInt("version", "PRAGMA user_version") == 4);
}

TEST_CASE("a v4 database migrates to v5: old tasks keep nothing in the background") {
  TempDir dir("migrate");
  const std::string path = dir.File("tq.db");
  LoadFixture(path, 4);
  Result<std::unique_ptr<SqliteStore>> opened = SqliteStore::Open(path, true);
  REQUIRE_MESSAGE(opened.ok(), opened.status().message());
  SqliteStore& store = **opened;
  CHECK(QueryInt(path, "PRAGMA user_version") == CurrentSchemaVersion());
  CHECK(QueryInt(BackupPath(path, 4), "PRAGMA user_version") == 4);

  for (TaskId id = 1; id <= 7; ++id) {
    CAPTURE(id);
    Result<Task> task = store.Get(id);
    REQUIRE_MESSAGE(task.ok(), task.status().message());
    CHECK_FALSE(task->spec.keep_background);
    for (const Attempt& a : task->attempts) CHECK(a.detail.empty());
  }
  // The stop asked of the running attempt before the upgrade survives it.
  Result<std::vector<RunningAttempt>> running = store.RunningAttempts();
  REQUIRE(running.ok());
  REQUIRE(running->size() == 1);
  REQUIRE((*running)[0].stop.has_value());
  CHECK((*running)[0].stop->at == 7000);

  // An attempt that never started is undone on the old rows too.
  REQUIRE(store.UnstartAttempt(3, 1).ok());
  CHECK(store.Get(3)->state == TaskState::kPending);
  CHECK(store.Get(3)->attempts.empty());
}

TEST_CASE("the v5 fixture has exactly the schema migrations 1 to 5 create") {
  TempDir dir("migrate");
  const std::string fixture = dir.File("fixture.db");
  LoadFixture(fixture, 5);
  sqlite::Db fresh = MustOpenDb(dir.File("fresh.db"));
  REQUIRE(Migrate(fresh, dir.File("fresh.db"), 5).ok());
  sqlite::Db loaded = MustOpenDb(fixture);
  CHECK(SchemaShape(loaded) == SchemaShape(fresh));
  CHECK(*loaded.QueryInt("version", "PRAGMA user_version") == 5);
}

TEST_CASE("a v5 database migrates to v6: old tasks are no job's runs and keep their places") {
  TempDir dir("migrate");
  const std::string path = dir.File("tq.db");
  LoadFixture(path, 5);
  Result<std::unique_ptr<SqliteStore>> opened = SqliteStore::Open(path, true);
  REQUIRE_MESSAGE(opened.ok(), opened.status().message());
  SqliteStore& store = **opened;
  CHECK(QueryInt(path, "PRAGMA user_version") == CurrentSchemaVersion());
  CHECK(QueryInt(BackupPath(path, 5), "PRAGMA user_version") == 5);

  const struct {
    TaskId id;
    TaskState state;
  } kTasks[] = {
      {1, TaskState::kSucceeded}, {2, TaskState::kFailed},  {3, TaskState::kRunning},
      {4, TaskState::kPending},   {5, TaskState::kPending}, {6, TaskState::kPending},
      {7, TaskState::kCancelled}, {8, TaskState::kFailed},
  };
  for (const auto& t : kTasks) {
    CAPTURE(t.id);
    Result<Task> task = store.Get(t.id);
    REQUIRE_MESSAGE(task.ok(), task.status().message());
    CHECK(task->state == t.state);
    CHECK_FALSE(task->spec.job.has_value());
    CHECK_FALSE(task->spec.job_exclusive);
  }
  CHECK(store.Get(4)->spec.keep_background);
  REQUIRE(store.Get(8)->attempts.size() == 1);
  CHECK(store.Get(8)->attempts[0].detail == "cwd /gone: No such file or directory");

  // The ready and delayed sets are as they were (tasks_delayed was rebuilt).
  CHECK((*store.FirstReady("batch", ReadyOrder::kOldest))->id == 4);
  CHECK(*store.NextDue() == std::optional<WallMs>(9999999999999));
  Result<std::vector<JobRecord>> records = store.JobRecords();
  REQUIRE(records.ok());
  CHECK(records->empty());
  Result<std::vector<StoredJobFile>> files = store.JobFiles();
  REQUIRE(files.ok());
  CHECK(files->empty());

  // The new tables work on the old file; new tasks continue the ids.
  REQUIRE(store.AddJobs({"nightly"}, 8000).ok());
  Result<FireOutcome> fired =
      store.Fire({"nightly", 8000, ""}, kAlice, test::Spec({"report"}), 8000);
  REQUIRE_MESSAGE(fired.ok(), fired.status().message());
  CHECK(fired->task == std::optional<TaskId>(9));
  CHECK(store.Get(9)->spec.job == std::optional<std::string>("nightly"));
}

TEST_CASE("a v8 database migrates to v9 with its tasks counted per queue and state") {
  TempDir dir("migrate");
  const std::string path = dir.File("tq.db");
  LoadFixture(path, 5);
  {
    // v8 as a released tqd left it: the v5 fixture's tasks, and a few more in another queue.
    sqlite::Db db = MustOpenDb(path);
    Status s = Migrate(db, path, 8);
    REQUIRE_MESSAGE(s.ok(), s.message());
    REQUIRE(*db.QueryInt("version", "PRAGMA user_version") == 8);
    s = db.Exec("add tasks",
                "INSERT INTO queues(name) VALUES ('nightly');"
                "INSERT INTO tasks(owner_uid, owner_gid, owner_name, argv, queue, priority, cwd, "
                "env_hash, clean_env, not_before, timeout_ms, state, reason, created, finished) "
                "VALUES (1001, 1001, 'bob', X'7200', 'nightly', 3, X'2f', '205206fbd8a043e7', 0, "
                "0, 0, 'expired', 'exit', 7500, 7600),"
                "(1001, 1001, 'bob', X'7200', 'nightly', 3, X'2f', '205206fbd8a043e7', 0, "
                "9999999999999, 0, 'pending', '', 7700, 0),"
                "(1001, 1001, 'bob', X'7200', 'nightly', 3, X'2f', '205206fbd8a043e7', 0, "
                "9999999999999, 0, 'pending', '', 7800, 0)");
    REQUIRE_MESSAGE(s.ok(), s.message());
    REQUIRE(*db.QueryInt("tasks", "SELECT count(*) FROM tasks") == 11);
  }
  Result<std::unique_ptr<SqliteStore>> opened = SqliteStore::Open(path, true);
  REQUIRE_MESSAGE(opened.ok(), opened.status().message());
  SqliteStore& store = **opened;
  CHECK(QueryInt(path, "PRAGMA user_version") == CurrentSchemaVersion());
  CHECK(QueryInt(BackupPath(path, 8), "PRAGMA user_version") == 8);

  auto counts = [&store] {
    Result<std::vector<TaskCount>> got = store.TaskCounts();
    REQUIRE_MESSAGE(got.ok(), got.status().message());
    std::vector<std::string> out;
    for (const TaskCount& c : *got) {
      out.push_back(c.queue + "/" + StateName(c.state) + "=" + std::to_string(c.count));
    }
    return out;
  };
  // By queue, then in TaskState's order (not by the states' names).
  CHECK(counts() == std::vector<std::string>{"batch/pending=1", "batch/running=1",
                                             "default/pending=2", "default/succeeded=1",
                                             "default/failed=2", "default/cancelled=1",
                                             "nightly/pending=2", "nightly/expired=1"});
  // The table holds exactly the pairs the tasks have, and no pair without tasks.
  const std::string kCounted = "SELECT queue, state, n FROM task_counts";
  const std::string kGrouped = "SELECT queue, state, count(*) FROM tasks GROUP BY queue, state";
  CHECK(QueryInt(path, "SELECT count(*) FROM (" + kCounted + " EXCEPT " + kGrouped + ")") == 0);
  CHECK(QueryInt(path, "SELECT count(*) FROM (" + kGrouped + " EXCEPT " + kCounted + ")") == 0);

  // The triggers keep the migrated counts: the running attempt fails, and so does task 6, which
  // waits for it; retention expires and purges.
  Result<std::vector<TaskId>> ended =
      store.FinishAttempt(3, 1, test::Exited(8000, 1), TaskState::kFailed, TaskReason::kExit);
  REQUIRE_MESSAGE(ended.ok(), ended.status().message());
  CHECK(*ended == std::vector<TaskId>{6});
  CHECK(counts() == std::vector<std::string>{"batch/pending=1", "batch/failed=1",
                                             "default/pending=1", "default/succeeded=1",
                                             "default/failed=3", "default/cancelled=1",
                                             "nightly/pending=2", "nightly/expired=1"});
  CHECK(*store.ExpireSucceeded(2000, 10) == std::vector<TaskId>{1});
  CHECK(test::Sorted(*store.PurgeEnded(8000, 100)) == std::vector<TaskId>{1, 2, 3, 6, 7, 8, 9});
  CHECK(counts() ==
        std::vector<std::string>{"batch/pending=1", "default/pending=1", "nightly/pending=2"});
  CHECK(QueryInt(path, "SELECT count(*) FROM task_counts") == 3);
}

TEST_CASE("a v9 database migrates to v10: its tasks notify no one, its jobs have no success") {
  TempDir dir("migrate");
  const std::string path = dir.File("tq.db");
  LoadFixture(path, 5);
  {
    sqlite::Db db = MustOpenDb(path);
    Status s = Migrate(db, path, 9);
    REQUIRE_MESSAGE(s.ok(), s.message());
    s = db.Exec("add a job", "INSERT INTO jobs(job, first_seen) VALUES ('nightly', 100)");
    REQUIRE_MESSAGE(s.ok(), s.message());
  }
  Result<std::unique_ptr<SqliteStore>> opened = SqliteStore::Open(path, true);
  REQUIRE_MESSAGE(opened.ok(), opened.status().message());
  SqliteStore& store = **opened;
  CHECK(QueryInt(path, "PRAGMA user_version") == CurrentSchemaVersion());
  CHECK(QueryInt(BackupPath(path, 9), "PRAGMA user_version") == 9);
  Result<std::vector<Task>> tasks = store.List(ListFilter{});
  REQUIRE_MESSAGE(tasks.ok(), tasks.status().message());
  REQUIRE_FALSE(tasks->empty());
  for (const Task& t : *tasks) CHECK(t.spec.notify == NotifySpec{});
  Result<std::vector<JobRecord>> records = store.JobRecords();
  REQUIRE(records.ok());
  REQUIRE(records->size() == 1);
  CHECK_FALSE((*records)[0].last_success.has_value());
  CHECK_FALSE((*records)[0].overdue_alerted.has_value());
}

TEST_CASE(
    "a v10 database migrates to v11: its queues keep their settings, with no mix of their own") {
  TempDir dir("migrate");
  const std::string path = dir.File("tq.db");
  LoadFixture(path, 5);
  {
    sqlite::Db db = MustOpenDb(path);
    Status s = Migrate(db, path, 10);
    REQUIRE_MESSAGE(s.ok(), s.message());
    s = db.Exec("pause a queue",
                "INSERT INTO queues(name, paused, concurrency) VALUES ('slow', 1, 2) "
                "ON CONFLICT(name) DO UPDATE SET paused = 1, concurrency = 2");
    REQUIRE_MESSAGE(s.ok(), s.message());
  }
  Result<std::unique_ptr<SqliteStore>> opened = SqliteStore::Open(path, true);
  REQUIRE_MESSAGE(opened.ok(), opened.status().message());
  CHECK(QueryInt(path, "PRAGMA user_version") == CurrentSchemaVersion());
  CHECK(QueryInt(BackupPath(path, 10), "PRAGMA user_version") == 10);
  Result<std::vector<QueueState>> queues = (*opened)->QueueStates();
  REQUIRE(queues.ok());
  bool found = false;
  for (const QueueState& q : *queues) {
    CHECK_FALSE(q.priority_mix.has_value());
    CHECK_FALSE(q.added);
    if (q.name != "slow") continue;
    found = true;
    CHECK(q.paused);
    CHECK(q.concurrency == 2);
  }
  CHECK(found);
}

TEST_CASE("a v11 database migrates to v12: its tasks ask for no units and hold none") {
  TempDir dir("migrate");
  const std::string path = dir.File("tq.db");
  LoadFixture(path, 5);
  {
    sqlite::Db db = MustOpenDb(path);
    Status s = Migrate(db, path, 11);
    REQUIRE_MESSAGE(s.ok(), s.message());
  }
  Result<std::unique_ptr<SqliteStore>> opened = SqliteStore::Open(path, true);
  REQUIRE_MESSAGE(opened.ok(), opened.status().message());
  SqliteStore& store = **opened;
  CHECK(QueryInt(path, "PRAGMA user_version") == CurrentSchemaVersion());
  CHECK(QueryInt(BackupPath(path, 11), "PRAGMA user_version") == 11);
  Result<std::vector<Task>> tasks = store.List(ListFilter{});
  REQUIRE_MESSAGE(tasks.ok(), tasks.status().message());
  REQUIRE_FALSE(tasks->empty());
  for (const Task& t : *tasks) {
    CHECK(t.spec.use.empty());
    Result<Task> full = store.Get(t.id);
    REQUIRE_MESSAGE(full.ok(), full.status().message());
    for (const Attempt& a : full->attempts) CHECK(a.units.empty());
  }
  CHECK(store.HeldUnits()->empty());
  CHECK(store.ReadyUnitRequests()->empty());
}

TEST_CASE("a v12 database migrates to v13: its tasks have no stages and keep their attempts") {
  TempDir dir("migrate");
  const std::string path = dir.File("tq.db");
  LoadFixture(path, 5);
  {
    sqlite::Db db = MustOpenDb(path);
    Status s = Migrate(db, path, 12);
    REQUIRE_MESSAGE(s.ok(), s.message());
  }
  Result<std::unique_ptr<SqliteStore>> opened = SqliteStore::Open(path, true);
  REQUIRE_MESSAGE(opened.ok(), opened.status().message());
  SqliteStore& store = **opened;
  CHECK(QueryInt(path, "PRAGMA user_version") == CurrentSchemaVersion());
  CHECK(QueryInt(BackupPath(path, 12), "PRAGMA user_version") == 12);
  Result<std::vector<Task>> tasks = store.List(ListFilter{});
  REQUIRE_MESSAGE(tasks.ok(), tasks.status().message());
  REQUIRE_FALSE(tasks->empty());
  bool some_attempt = false;
  for (const Task& t : *tasks) {
    CHECK(t.spec.stages.empty());
    CHECK(t.stage == 0);
    Result<Task> full = store.Get(t.id);
    REQUIRE_MESSAGE(full.ok(), full.status().message());
    CHECK((!full->spec.argv.empty() || full->spec.shell));
    for (const Attempt& a : full->attempts) {
      some_attempt = true;
      CHECK(a.stage == 0);
    }
  }
  CHECK(some_attempt);
  // A task with stages is stored and read back in the migrated database.
  TaskSpec spec;
  spec.cwd = "/";
  spec.stages = {{"dump", {"true"}, std::nullopt, 5000, {}},
                 {"gz", {}, "gzip x", std::nullopt, {}}};
  Result<TaskId> id = store.Insert(Owner{1000, 1000, "alice"}, spec, 1000);
  REQUIRE_MESSAGE(id.ok(), id.status().message());
  Result<Task> back = store.Get(*id);
  REQUIRE(back.ok());
  REQUIRE(back->spec.stages.size() == 2);
  CHECK(back->spec.stages[1].shell == "gzip x");
}

TEST_CASE("a v13 database migrates to v14: its tasks are no shards, and a group follows them") {
  TempDir dir("migrate");
  const std::string path = dir.File("tq.db");
  LoadFixture(path, 5);
  {
    sqlite::Db db = MustOpenDb(path);
    Status s = Migrate(db, path, 13);
    REQUIRE_MESSAGE(s.ok(), s.message());
  }
  Result<std::unique_ptr<SqliteStore>> opened = SqliteStore::Open(path, true);
  REQUIRE_MESSAGE(opened.ok(), opened.status().message());
  SqliteStore& store = **opened;
  CHECK(QueryInt(path, "PRAGMA user_version") == CurrentSchemaVersion());
  CHECK(QueryInt(BackupPath(path, 13), "PRAGMA user_version") == 13);
  Result<std::vector<Task>> tasks = store.List(ListFilter{});
  REQUIRE_MESSAGE(tasks.ok(), tasks.status().message());
  REQUIRE_FALSE(tasks->empty());
  TaskId newest = 0;
  for (const Task& t : *tasks) {
    CHECK_FALSE(t.spec.shard.has_value());
    newest = std::max(newest, t.id);
  }
  TaskSpec spec;
  spec.argv = {"true"};
  Result<ShardedSubmit> group = store.SubmitShards({0, 0, "root"}, spec, 2, 1000);
  REQUIRE_MESSAGE(group.ok(), group.status().message());
  CHECK(group->group > newest);
  CHECK(group->ids.front() > group->group);
}

TEST_CASE("a v14 database migrates to v15: its running attempts become the first host's") {
  TempDir dir("migrate");
  const std::string path = dir.File("tq.db");
  LoadFixture(path, 5);
  {
    sqlite::Db db = MustOpenDb(path);
    Status s = Migrate(db, path, 14);
    REQUIRE_MESSAGE(s.ok(), s.message());
  }
  // The fixture's task 3 runs (attempt 1, not ended).
  REQUIRE(QueryInt(path, "SELECT count(*) FROM tasks WHERE state = 'running'") == 1);
  const TaskId running = QueryInt(path, "SELECT id FROM tasks WHERE state = 'running'");
  Result<std::unique_ptr<SqliteStore>> opened = SqliteStore::Open(path, true);
  REQUIRE_MESSAGE(opened.ok(), opened.status().message());
  SqliteStore& store = **opened;
  CHECK(QueryInt(path, "PRAGMA user_version") == CurrentSchemaVersion());
  CHECK(QueryInt(BackupPath(path, 14), "PRAGMA user_version") == 14);
  REQUIRE(store.JoinHost("web-1", "0.1.0", 2, 2000).ok());
  Result<std::vector<RunningAttempt>> attempts = store.RunningAttempts();
  REQUIRE(attempts.ok());
  REQUIRE(attempts->size() == 1);
  CHECK((*attempts)[0].task_id == running);
  Result<std::vector<HostRecord>> hosts = store.Hosts(2000);
  REQUIRE(hosts.ok());
  REQUIRE(hosts->size() == 1);
  CHECK((*hosts)[0].name == "web-1");
  CHECK((*hosts)[0].running == 1);
}

TEST_CASE("a v15 database migrates to v16: its ready tasks are placed on no host") {
  TempDir dir("migrate");
  const std::string path = dir.File("tq.db");
  LoadFixture(path, 5);
  {
    sqlite::Db db = MustOpenDb(path);
    Status s = Migrate(db, path, 15);
    REQUIRE_MESSAGE(s.ok(), s.message());
  }
  REQUIRE(QueryInt(path, "SELECT count(*) FROM tasks WHERE ready = 1") > 0);
  const std::string queue = [&] {
    sqlite::Db db = MustOpenDb(path);
    return MigratedRows(db, "SELECT queue FROM tasks WHERE ready = 1 ORDER BY id LIMIT 1").front();
  }();
  const int64_t owner =
      QueryInt(path, "SELECT owner_uid FROM tasks WHERE ready = 1 ORDER BY id LIMIT 1");
  Result<std::unique_ptr<SqliteStore>> opened = SqliteStore::Open(path, true);
  REQUIRE_MESSAGE(opened.ok(), opened.status().message());
  SqliteStore& store = **opened;
  CHECK(QueryInt(path, "PRAGMA user_version") == CurrentSchemaVersion());
  CHECK(QueryInt(path, "SELECT count(*) FROM tasks WHERE run_on <> ''") == 0);
  auto unplaced = store.FirstReady(queue, static_cast<uint32_t>(owner), ReadyOrder::kOldest, {});
  REQUIRE(unplaced.ok());
  CHECK(unplaced->has_value());
  auto placed_only = store.FirstReady(queue, static_cast<uint32_t>(owner), ReadyOrder::kOldest, {},
                                      ReadyPlaces{"web-1", false});
  REQUIRE(placed_only.ok());
  CHECK_FALSE(placed_only->has_value());
}

TEST_CASE("a v16 database migrates to v17, where a group's end is claimed once") {
  TempDir dir("migrate");
  const std::string path = dir.File("tq.db");
  LoadFixture(path, 5);
  {
    sqlite::Db db = MustOpenDb(path);
    Status s = Migrate(db, path, 16);
    REQUIRE_MESSAGE(s.ok(), s.message());
  }
  TaskId group = 0;
  {
    Result<std::unique_ptr<SqliteStore>> opened = SqliteStore::Open(path, true);
    REQUIRE_MESSAGE(opened.ok(), opened.status().message());
    CHECK(QueryInt(path, "PRAGMA user_version") == CurrentSchemaVersion());
    CHECK(QueryInt(BackupPath(path, 16), "PRAGMA user_version") == 16);
    CHECK(QueryInt(path, "SELECT count(*) FROM tasks WHERE group_told <> 0") == 0);
    SqliteStore& store = **opened;
    TaskSpec spec;
    spec.argv = {"true"};
    Result<ShardedSubmit> out = store.SubmitShards({0, 0, "root"}, spec, 2, 1000);
    REQUIRE_MESSAGE(out.ok(), out.status().message());
    group = out->group;
    for (TaskId id : out->ids) {
      REQUIRE(store.StartAttempt(id, 1100, {})->has_value());
      AttemptOutcome exited;
      exited.ended = 1200;
      exited.exit_code = 0;
      REQUIRE(store.FinishAttempt(id, 1, exited, TaskState::kSucceeded, TaskReason::kExit).ok());
    }
    CHECK(*store.ClaimGroupEnd(group));
  }
  Result<std::unique_ptr<SqliteStore>> reopened = SqliteStore::Open(path, true);
  REQUIRE(reopened.ok());
  CHECK_FALSE(*(*reopened)->ClaimGroupEnd(group));  // the claim is kept
}

TEST_CASE("a v17 database migrates to v18: its attempts' output was cut nowhere") {
  TempDir dir("migrate");
  const std::string path = dir.File("tq.db");
  LoadFixture(path, 5);
  {
    sqlite::Db db = MustOpenDb(path);
    Status s = Migrate(db, path, 17);
    REQUIRE_MESSAGE(s.ok(), s.message());
  }
  REQUIRE(QueryInt(path, "SELECT count(*) FROM attempts") > 0);
  Result<std::unique_ptr<SqliteStore>> opened = SqliteStore::Open(path, true);
  REQUIRE_MESSAGE(opened.ok(), opened.status().message());
  CHECK(QueryInt(path, "PRAGMA user_version") == CurrentSchemaVersion());
  CHECK(QueryInt(BackupPath(path, 17), "PRAGMA user_version") == 17);
  SqliteStore& store = **opened;
  Result<std::vector<Task>> tasks = store.List(ListFilter{});
  REQUIRE(tasks.ok());
  for (const Task& t : *tasks) {
    Result<Task> full = store.Get(t.id);
    REQUIRE(full.ok());
    for (const Attempt& a : full->attempts) CHECK(a.output_cuts.empty());
  }
}

}  // namespace
}  // namespace tq
