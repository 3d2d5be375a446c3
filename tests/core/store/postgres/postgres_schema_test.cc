// The PostgreSQL store's migrations over a schema that holds tasks: a store of the previous
// version, with a ready task and an ended attempt, migrates to the current one and goes on.
#include <doctest/doctest.h>
#include <libpq-fe.h>

#include <memory>
#include <string>

#include "core/store/postgres/open.h"
#include "core/store/test_util.h"
#include "support/pg_server.h"
#include "support/skip.h"

namespace tq {
namespace {

using namespace test;  // NOLINT: the shared helpers of the store's tests

std::unique_ptr<Store> MustOpenSchema(const std::string& conninfo) {
  Result<std::unique_ptr<Store>> store = OpenPostgresStore(conninfo, false);
  REQUIRE_MESSAGE(store.ok(), store.status().message());
  return std::move(*store);
}

// Runs `sql` in the schema `conninfo` names.
void MustRun(const std::string& conninfo, const std::string& sql) {
  PGconn* conn = PQconnectdb(conninfo.c_str());
  REQUIRE_MESSAGE(PQstatus(conn) == CONNECTION_OK, PQerrorMessage(conn));
  PGresult* res = PQexec(conn, sql.c_str());
  const bool ok = PQresultStatus(res) == PGRES_COMMAND_OK;
  const std::string error = PQresultErrorMessage(res);
  PQclear(res);
  PQfinish(conn);
  REQUIRE_MESSAGE(ok, error);
}

// Stores in the schema `conninfo` names a task that succeeded and, when `waiting`, one that
// waits; returns the first's id.
TaskId MustEndOne(const std::string& conninfo, bool waiting) {
  std::unique_ptr<Store> store = MustOpenSchema(conninfo);
  const TaskId ended = MustInsert(*store, kAlice, Spec({"done"}));
  StartAndFinish(*store, ended, TaskState::kSucceeded, 1000);
  if (waiting) MustInsert(*store, kAlice, Spec({"waiting"}));
  return ended;
}

// What migration 7 (a state change counted in one statement) undoes: the counting triggers as
// version 6 made them.
constexpr const char* kUndoV7 = R"sql(
CREATE FUNCTION tq_count_tasks(q bytea, s text, delta bigint) RETURNS void LANGUAGE plpgsql AS $$
DECLARE
  left_n bigint;
BEGIN
  INSERT INTO task_counts AS c (queue, state, slot, n) VALUES (q, s, tq_slot(), delta)
    ON CONFLICT (queue, state, slot) DO UPDATE SET n = c.n + excluded.n RETURNING c.n INTO left_n;
  IF left_n = 0 THEN
    DELETE FROM task_counts WHERE queue = q AND state = s AND slot = tq_slot();
  END IF;
END $$;
CREATE OR REPLACE FUNCTION tq_tasks_counted() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM tq_count_tasks(NEW.queue, NEW.state, 1);
  RETURN NULL;
END $$;
CREATE OR REPLACE FUNCTION tq_tasks_uncounted() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM tq_count_tasks(OLD.queue, OLD.state, -1);
  RETURN NULL;
END $$;
CREATE OR REPLACE FUNCTION tq_tasks_recounted() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM tq_count_tasks(OLD.queue, OLD.state, -1);
  PERFORM tq_count_tasks(NEW.queue, NEW.state, 1);
  RETURN NULL;
END $$;
)sql";

// What migration 7 undoes: the schema as version 6 made it.
const std::string kBackToV6 = std::string(kUndoV7) + R"sql(
DELETE FROM tq_schema;
INSERT INTO tq_schema VALUES (6);
)sql";

// What migration 6 (a counter row per host) undoes: the counters and their triggers as version 5
// made them (a store of one writer, whose rows are all slot '').
constexpr const char* kUndoV6 = R"sql(
ALTER TABLE task_counts DROP CONSTRAINT task_counts_pkey;
ALTER TABLE task_counts DROP COLUMN slot;
ALTER TABLE task_counts ADD PRIMARY KEY (queue, state);
ALTER TABLE owner_output DROP CONSTRAINT owner_output_pkey;
ALTER TABLE owner_output DROP COLUMN slot;
ALTER TABLE owner_output ADD PRIMARY KEY (owner_uid);
CREATE OR REPLACE FUNCTION tq_attempts_output_kept() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO owner_output AS o (owner_uid, bytes)
    SELECT owner_uid, NEW.output_bytes - OLD.output_bytes FROM tasks WHERE id = NEW.task_id
    ON CONFLICT (owner_uid) DO UPDATE SET bytes = o.bytes + excluded.bytes;
  RETURN NULL;
END $$;
CREATE OR REPLACE FUNCTION tq_tasks_output_gone() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  UPDATE owner_output SET bytes = bytes -
    (SELECT coalesce(sum(output_bytes), 0) FROM attempts WHERE task_id = OLD.id)
    WHERE owner_uid = OLD.owner_uid;
  RETURN OLD;
END $$;
CREATE OR REPLACE FUNCTION tq_attempts_output_gone() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  UPDATE owner_output SET bytes = bytes - OLD.output_bytes
    WHERE owner_uid = (SELECT owner_uid FROM tasks WHERE id = OLD.task_id);
  RETURN NULL;
END $$;
CREATE OR REPLACE FUNCTION tq_tasks_counted() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO task_counts AS c (queue, state, n) VALUES (NEW.queue, NEW.state, 1)
    ON CONFLICT (queue, state) DO UPDATE SET n = c.n + 1;
  RETURN NULL;
END $$;
CREATE OR REPLACE FUNCTION tq_tasks_uncounted() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  DELETE FROM task_counts WHERE queue = OLD.queue AND state = OLD.state AND n <= 1;
  UPDATE task_counts SET n = n - 1 WHERE queue = OLD.queue AND state = OLD.state;
  RETURN NULL;
END $$;
CREATE OR REPLACE FUNCTION tq_tasks_recounted() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  DELETE FROM task_counts WHERE queue = OLD.queue AND state = OLD.state AND n <= 1;
  UPDATE task_counts SET n = n - 1 WHERE queue = OLD.queue AND state = OLD.state;
  INSERT INTO task_counts AS c (queue, state, n) VALUES (NEW.queue, NEW.state, 1)
    ON CONFLICT (queue, state) DO UPDATE SET n = c.n + 1;
  RETURN NULL;
END $$;
DROP FUNCTION tq_count_tasks(bytea, text, bigint);
DROP FUNCTION tq_count_output(bigint, bigint);
DROP FUNCTION tq_slot();
)sql";

// What migrations 6 and 7 undo: the schema as version 5 made it.
const std::string kBackToV5 = std::string(kUndoV7) + kUndoV6 + R"sql(
DELETE FROM tq_schema;
INSERT INTO tq_schema VALUES (5);
)sql";

// What migrations 5 (where output was cut) to 7 undo: the schema as version 4 made it.
const std::string kBackToV4 = std::string(kUndoV7) + kUndoV6 + R"sql(
ALTER TABLE attempts DROP COLUMN output_cut;
DELETE FROM tq_schema;
INSERT INTO tq_schema VALUES (4);
)sql";

// What migrations 4 (a group's end told once) to 7 undo: the schema as version 3 made it.
const std::string kBackToV3 = std::string(kUndoV7) + kUndoV6 + R"sql(
ALTER TABLE attempts DROP COLUMN output_cut;
ALTER TABLE tasks DROP COLUMN group_told;
DELETE FROM tq_schema;
INSERT INTO tq_schema VALUES (3);
)sql";

// What migrations 3 (placement, output for every host) to 7 undo: the schema as version 2 made
// it.
const std::string kBackToV2 = std::string(kUndoV7) + kUndoV6 + R"sql(
ALTER TABLE attempts DROP COLUMN output_cut;
ALTER TABLE tasks DROP COLUMN group_told;
DROP TABLE attempt_output;
ALTER TABLE tasks DROP COLUMN run_on;
CREATE INDEX tasks_ready_by_priority ON tasks(queue, owner_uid, priority, id) WHERE ready = 1;
CREATE INDEX tasks_ready_by_id ON tasks(queue, owner_uid, id) WHERE ready = 1;
DELETE FROM tq_schema;
INSERT INTO tq_schema VALUES (2);
)sql";

TEST_CASE("postgres: a v2 store migrates to v3: its tasks are placed on no host and run on") {
  std::string why;
  test::PgServer* server = test::PgServer::Get(&why);
  if (server == nullptr) TQ_SKIP(why);
  const std::string conninfo = server->FreshSchema();
  REQUIRE_FALSE(conninfo.empty());
  TaskId ready = 0, ended = 0;
  {
    std::unique_ptr<Store> store = MustOpenSchema(conninfo);
    ended = MustInsert(*store, kAlice, Spec({"done"}));
    StartAndFinish(*store, ended, TaskState::kSucceeded, 1000);
    ready = MustInsert(*store, kAlice, Spec({"waiting"}));
  }
  MustRun(conninfo, kBackToV2);
  REQUIRE(test::PgQueryInt(conninfo, "SELECT max(version) FROM tq_schema") == 2);

  std::unique_ptr<Store> store = MustOpenSchema(conninfo);
  CHECK(test::PgQueryInt(conninfo, "SELECT max(version) FROM tq_schema") == 7);
  CHECK(MustGet(*store, ready).spec.run_on.empty());
  Result<std::optional<Candidate>> c =
      store->FirstReady("default", kAlice.uid, ReadyOrder::kOldest, {}, ReadyPlaces{"web-1", true});
  REQUIRE(c.ok());
  REQUIRE(c->has_value());
  CHECK((*c)->id == ready);
  REQUIRE(store->SaveOutput(ended, 1, StoredOutput{"out", "", ""}).ok());
  CHECK((*store->SavedOutput(ended, 1))->stdout_bytes == "out");
}

TEST_CASE("postgres: a v3 store migrates to v4: a group that ended before is told once more") {
  std::string why;
  test::PgServer* server = test::PgServer::Get(&why);
  if (server == nullptr) TQ_SKIP(why);
  const std::string conninfo = server->FreshSchema();
  REQUIRE_FALSE(conninfo.empty());
  TaskId group = 0;
  {
    std::unique_ptr<Store> store = MustOpenSchema(conninfo);
    Result<ShardedSubmit> out = store->SubmitShards(kAlice, Spec({"x"}), 2, 1000);
    REQUIRE_MESSAGE(out.ok(), out.status().message());
    group = out->group;
    for (TaskId id : out->ids) StartAndFinish(*store, id, TaskState::kSucceeded, 1100);
  }
  MustRun(conninfo, kBackToV3);
  std::unique_ptr<Store> store = MustOpenSchema(conninfo);
  CHECK(test::PgQueryInt(conninfo, "SELECT max(version) FROM tq_schema") == 7);
  CHECK(*store->ClaimGroupEnd(group));
  CHECK_FALSE(*store->ClaimGroupEnd(group));
}

TEST_CASE("postgres: a v4 store migrates to v5: its attempts' output was cut nowhere") {
  std::string why;
  test::PgServer* server = test::PgServer::Get(&why);
  if (server == nullptr) TQ_SKIP(why);
  const std::string conninfo = server->FreshSchema();
  REQUIRE_FALSE(conninfo.empty());
  const TaskId ended = MustEndOne(conninfo, false);
  MustRun(conninfo, kBackToV4);
  std::unique_ptr<Store> store = MustOpenSchema(conninfo);
  CHECK(test::PgQueryInt(conninfo, "SELECT max(version) FROM tq_schema") == 7);
  const Task task = MustGet(*store, ended);
  REQUIRE(task.attempts.size() == 1);
  CHECK(task.attempts[0].output_cuts.empty());
}

TEST_CASE("postgres: a v5 store migrates to v6: its counts and kept output carry on") {
  std::string why;
  test::PgServer* server = test::PgServer::Get(&why);
  if (server == nullptr) TQ_SKIP(why);
  const std::string conninfo = server->FreshSchema();
  REQUIRE_FALSE(conninfo.empty());
  TaskId ended = 0;
  {
    std::unique_ptr<Store> store = MustOpenSchema(conninfo);
    ended = MustInsert(*store, kAlice, Spec({"done"}));
    const int n = MustStart(*store, ended, 1000);
    AttemptOutcome out = Exited(1010, 0);
    out.output_bytes = 700;
    REQUIRE(
        store->FinishAttempt(ended, n, out, TaskState::kSucceeded, TaskReasonForAttempt(out.reason))
            .ok());
    MustInsert(*store, kAlice, Spec({"waiting"}));
  }
  MustRun(conninfo, kBackToV5);
  REQUIRE(test::PgQueryInt(conninfo, "SELECT max(version) FROM tq_schema") == 5);
  std::unique_ptr<Store> store = MustOpenSchema(conninfo);
  CHECK(test::PgQueryInt(conninfo, "SELECT max(version) FROM tq_schema") == 7);
  CHECK(*store->OutputOf(kAlice.uid) == 700);
  REQUIRE(store->JoinHost("web-1", "0.1.0", 4, 2000).ok());
  MustInsert(*store, kAlice, Spec({"more"}));
  std::vector<TaskCount> counts = *store->TaskCounts();
  REQUIRE(counts.size() == 2);
  CHECK(counts[0].state == TaskState::kPending);
  CHECK(counts[0].count == 2);
  CHECK(counts[1].state == TaskState::kSucceeded);
  CHECK(counts[1].count == 1);
  // The new task was counted in the host's own row.
  CHECK(test::PgQueryInt(conninfo, "SELECT n FROM task_counts WHERE slot = 'web-1'") == 1);
  Result<RemovedTasks> removed = store->RemoveFinished({ended});
  REQUIRE_MESSAGE(removed.ok(), removed.status().message());
  CHECK(*store->OutputOf(kAlice.uid) == 0);
}

TEST_CASE(
    "postgres: a v6 store migrates to v7: its counts carry on, a state change counts once, and "
    "counts at zero are forgotten with the ended tasks") {
  std::string why;
  test::PgServer* server = test::PgServer::Get(&why);
  if (server == nullptr) TQ_SKIP(why);
  const std::string conninfo = server->FreshSchema();
  REQUIRE_FALSE(conninfo.empty());
  const TaskId ended = MustEndOne(conninfo, true);
  MustRun(conninfo, kBackToV6);
  REQUIRE(test::PgQueryInt(conninfo, "SELECT max(version) FROM tq_schema") == 6);
  std::unique_ptr<Store> store = MustOpenSchema(conninfo);
  CHECK(test::PgQueryInt(conninfo, "SELECT max(version) FROM tq_schema") == 7);
  const TaskId second = MustInsert(*store, kAlice, Spec({"second"}));
  StartAndFinish(*store, second, TaskState::kFailed, 2000);
  std::vector<TaskCount> counts = *store->TaskCounts();
  REQUIRE(counts.size() == 3);  // running's zero is kept, and not listed
  CHECK(counts[0].state == TaskState::kPending);
  CHECK(counts[1].state == TaskState::kSucceeded);
  CHECK(counts[2].state == TaskState::kFailed);
  for (const TaskCount& c : counts) CHECK(c.count == 1);
  CHECK(test::PgQueryInt(conninfo, "SELECT count(*) FROM task_counts WHERE n = 0") == 1);
  Result<RemovedTasks> removed = store->RemoveFinished({ended, second});
  REQUIRE_MESSAGE(removed.ok(), removed.status().message());
  CHECK(test::PgQueryInt(conninfo, "SELECT count(*) FROM task_counts WHERE n = 0") == 0);
  counts = *store->TaskCounts();
  REQUIRE(counts.size() == 1);
  CHECK(counts[0].state == TaskState::kPending);
}

TEST_CASE(
    "postgres: a schema holding an extension's objects is a store, and one with a table "
    "of its own is not") {
  std::string why;
  test::PgServer* server = test::PgServer::Get(&why);
  if (server == nullptr) TQ_SKIP(why);
  const std::string conninfo = server->FreshDatabase();
  REQUIRE_FALSE(conninfo.empty());
  // pg_stat_statements puts a view and functions in the schema (public) it is created in.
  MustRun(conninfo, "CREATE EXTENSION pg_stat_statements");
  {
    std::unique_ptr<Store> store = MustOpenSchema(conninfo);
    CHECK(MustInsert(*store, kAlice, Spec({"x"})) > 0);
  }
  const std::string other = server->FreshSchema();
  REQUIRE_FALSE(other.empty());
  MustRun(other, "CREATE TABLE invoices (id bigint)");
  Result<std::unique_ptr<Store>> refused = OpenPostgresStore(other, false);
  REQUIRE_FALSE(refused.ok());
  CHECK(refused.status().message().find("not a tq store") != std::string::npos);
  CHECK(refused.status().fault() == StoreFault::kPermanent);
}

}  // namespace
}  // namespace tq
