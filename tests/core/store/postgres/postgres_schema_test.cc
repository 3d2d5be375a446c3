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

std::unique_ptr<Store> MustOpen(const std::string& conninfo) {
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

// What migration 5 (where output was cut) undoes: the schema as version 4 made it.
constexpr const char* kBackToV4 = R"sql(
ALTER TABLE attempts DROP COLUMN output_cut;
DELETE FROM tq_schema;
INSERT INTO tq_schema VALUES (4);
)sql";

// What migrations 4 (a group's end told once) and 5 undo: the schema as version 3 made it.
constexpr const char* kBackToV3 = R"sql(
ALTER TABLE attempts DROP COLUMN output_cut;
ALTER TABLE tasks DROP COLUMN group_told;
DELETE FROM tq_schema;
INSERT INTO tq_schema VALUES (3);
)sql";

// What migrations 3 (placement, output for every host) to 5 undo: the schema as version 2 made
// it.
constexpr const char* kBackToV2 = R"sql(
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
    std::unique_ptr<Store> store = MustOpen(conninfo);
    ended = MustInsert(*store, kAlice, Spec({"done"}));
    StartAndFinish(*store, ended, TaskState::kSucceeded, 1000);
    ready = MustInsert(*store, kAlice, Spec({"waiting"}));
  }
  MustRun(conninfo, kBackToV2);
  REQUIRE(test::PgQueryInt(conninfo, "SELECT max(version) FROM tq_schema") == 2);

  std::unique_ptr<Store> store = MustOpen(conninfo);
  CHECK(test::PgQueryInt(conninfo, "SELECT max(version) FROM tq_schema") == 5);
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
    std::unique_ptr<Store> store = MustOpen(conninfo);
    Result<ShardedSubmit> out = store->SubmitShards(kAlice, Spec({"x"}), 2, 1000);
    REQUIRE_MESSAGE(out.ok(), out.status().message());
    group = out->group;
    for (TaskId id : out->ids) StartAndFinish(*store, id, TaskState::kSucceeded, 1100);
  }
  MustRun(conninfo, kBackToV3);
  std::unique_ptr<Store> store = MustOpen(conninfo);
  CHECK(test::PgQueryInt(conninfo, "SELECT max(version) FROM tq_schema") == 5);
  CHECK(*store->ClaimGroupEnd(group));
  CHECK_FALSE(*store->ClaimGroupEnd(group));
}

TEST_CASE("postgres: a v4 store migrates to v5: its attempts' output was cut nowhere") {
  std::string why;
  test::PgServer* server = test::PgServer::Get(&why);
  if (server == nullptr) TQ_SKIP(why);
  const std::string conninfo = server->FreshSchema();
  REQUIRE_FALSE(conninfo.empty());
  TaskId ended = 0;
  {
    std::unique_ptr<Store> store = MustOpen(conninfo);
    ended = MustInsert(*store, kAlice, Spec({"done"}));
    StartAndFinish(*store, ended, TaskState::kSucceeded, 1000);
  }
  MustRun(conninfo, kBackToV4);
  std::unique_ptr<Store> store = MustOpen(conninfo);
  CHECK(test::PgQueryInt(conninfo, "SELECT max(version) FROM tq_schema") == 5);
  const Task task = MustGet(*store, ended);
  REQUIRE(task.attempts.size() == 1);
  CHECK(task.attempts[0].output_cuts.empty());
}

}  // namespace
}  // namespace tq
