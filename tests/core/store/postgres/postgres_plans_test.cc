// The hot statements of the PostgreSQL store read a few rows whatever the backlog, even before
// the server has statistics of the tables (a new store, a burst of submits): their plans must not
// hang on estimates. Each runs under EXPLAIN ANALYZE with a backlog of ready tasks, and the most
// rows any step of its plan read (or read and filtered out) is counted.
#include <doctest/doctest.h>

#include <memory>
#include <string>

#include "core/store/postgres/joined_store.h"
#include "core/store/sql/statements.h"
#include "core/store/test_util.h"
#include "support/pg_server.h"
#include "support/skip.h"

namespace tq {
namespace {

using namespace test;  // NOLINT: the shared helpers of the store's tests

// `sql` with each of `values` put for $1, $2, ... in turn (literals, as the test writes them).
std::string WithValues(std::string sql, const std::vector<std::string>& values) {
  for (size_t i = values.size(); i > 0; --i) {  // $10 before $1
    const std::string param = "$" + std::to_string(i);
    for (size_t at = sql.find(param); at != std::string::npos; at = sql.find(param, at))
      sql.replace(at, param.size(), values[i - 1]);
  }
  return sql;
}

// The plpgsql function tq_test_most_rows(q): the most rows a step of q's plan read or filtered
// out, under EXPLAIN ANALYZE.
constexpr const char* kMostRowsFunction =
    "CREATE FUNCTION tq_test_most_rows(q text) RETURNS bigint LANGUAGE plpgsql "
    "AS $$ DECLARE plan jsonb; BEGIN EXECUTE 'EXPLAIN (ANALYZE, FORMAT JSON) ' "
    "|| q INTO plan; RETURN (SELECT max((v #>> '{}')::numeric) FROM "
    "jsonb_path_query(plan, 'strict $.**.\"Actual Rows\"') AS v UNION ALL "
    "SELECT max((v #>> '{}')::numeric) FROM jsonb_path_query(plan, "
    "'strict $.**.\"Rows Removed by Filter\"') AS v ORDER BY 1 DESC NULLS LAST "
    "LIMIT 1); END $$";

// A statement to plan, with literal values for its parameters.
struct PlanCase {
  const char* name;
  SqlStore::PlannedQuery query;
  std::vector<std::string> values;

  // Its PostgreSQL text with the values in place.
  std::string Sql() const { return WithValues(PlannedSql(sql::Dialect::kPostgres, query), values); }
};

// `sql` quoted as a string literal.
std::string Quoted(std::string sql) {
  for (size_t at = sql.find('\''); at != std::string::npos; at = sql.find('\'', at + 2))
    sql.replace(at, 1, "''");
  return "'" + sql + "'";
}

TEST_CASE("postgres: releasing dependents and listing ready owners read a few rows of a backlog") {
  std::string why;
  const std::string conninfo = FreshSchemaUri(&why);
  if (conninfo.empty()) TQ_SKIP(why);
  std::unique_ptr<Store> store = MustJoin(conninfo, "alpha");
  const TaskId done = MustInsert(*store, kAlice, Spec({"done"}));
  StartAndFinish(*store, done, TaskState::kSucceeded, 1100);
  REQUIRE(store->SubmitBatch(kAlice, std::vector<TaskSpec>(2000, Spec({"x"})), 1200).ok());
  REQUIRE(PgQueryInt(conninfo, std::string(kMostRowsFunction) + "; SELECT 1") == 1);
  using Q = SqlStore::PlannedQuery;
  const PlanCase kCases[] = {
      {"release dependents", Q::kReleaseDependents, {std::to_string(done), "2000"}},
      {"ready owners", Q::kReadyOwners, {"convert_to('default', 'UTF8')"}},
      {"ready unit requests", Q::kReadyUnitRequests, {}},
  };
  for (const auto& c : kCases) {
    const std::string name = c.name;
    CAPTURE(name);
    CHECK(PgQueryInt(conninfo, "SELECT tq_test_most_rows(" + Quoted(c.Sql()) + ")") <= 5);
  }
}

// tqd's session prepares its statements when it starts, often on an empty store: a statement
// with no parameters keeps the plan made then, whatever the store holds later.
TEST_CASE("postgres: the hot statements planned on an empty store read a few rows of a backlog") {
  std::string why;
  const std::string conninfo = FreshSchemaUri(&why);
  if (conninfo.empty()) TQ_SKIP(why);
  std::unique_ptr<Store> store = MustJoin(conninfo, "alpha");
  PgSession session(conninfo);
  session.Exec(kMostRowsFunction);
  using Q = SqlStore::PlannedQuery;
  const PlanCase kCases[] = {
      {"ready unit requests", Q::kReadyUnitRequests, {}},
      {"ready queues", Q::kReadyQueues, {}},
      {"ready owners", Q::kReadyOwners, {"convert_to('default', 'UTF8')"}},
      {"next due", Q::kNextDue, {}},
      {"next pending ttl", Q::kNextPendingTtl, {}},
      {"oldest succeeded", Q::kOldestSucceeded, {}},
      {"oldest ended", Q::kOldestEnded, {}},
  };
  // Each prepared and planned while the store is empty, as in tqd's session...
  for (size_t i = 0; i < std::size(kCases); ++i) {
    const std::string name = "tq_p" + std::to_string(i);
    session.Exec("PREPARE " + name + " AS " + kCases[i].Sql());
    session.Exec("EXPLAIN EXECUTE " + name);
  }
  // ... then a backlog: ready, succeeded and failed tasks by the thousand.
  REQUIRE(store->SubmitBatch(kAlice, std::vector<TaskSpec>(2000, Spec({"x"})), 1200).ok());
  for (int i = 0; i < 300; ++i) {
    const TaskId id = MustInsert(*store, kAlice, Spec({"ran"}));
    StartAndFinish(*store, id, i % 2 == 0 ? TaskState::kSucceeded : TaskState::kFailed, 1300 + i);
  }
  for (size_t i = 0; i < std::size(kCases); ++i) {
    const std::string name = kCases[i].name;
    CAPTURE(name);
    CHECK(session.Int("SELECT tq_test_most_rows('EXECUTE tq_p" + std::to_string(i) + "')") <= 5);
  }
}

}  // namespace
}  // namespace tq
