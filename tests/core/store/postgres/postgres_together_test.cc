// Writes inside one shared transaction on PostgreSQL (SqlStore::WriteOrRefuse): starts, ends,
// saved output and promotions take no savepoint of their own. A refusal (a task not running the
// attempt ended) leaves the transaction going; a write the database fails gives all of it up,
// as PostgreSQL does itself, and nothing of it is stored; the next transactions then take a
// savepoint for each write again, so that a write that keeps failing is undone alone.
#include <doctest/doctest.h>

#include <memory>
#include <string>

#include "core/store/postgres/open.h"
#include "core/store/test_util.h"
#include "support/pg_server.h"
#include "support/skip.h"

namespace tq {
namespace {

using namespace test;  // NOLINT: the shared helpers of the store's tests

TEST_CASE(
    "postgres: in one transaction a refused end leaves the rest, a failed write gives it up") {
  std::string why;
  const std::string conninfo = FreshSchemaUri(&why);
  if (conninfo.empty()) TQ_SKIP(why);
  Result<std::unique_ptr<Store>> opened = OpenPostgresStore(conninfo, false);
  REQUIRE_MESSAGE(opened.ok(), opened.status().message());
  Store& store = **opened;
  const TaskId running = MustInsert(store, kAlice, Spec({"running"}));
  REQUIRE(MustStart(store, running, 1000) == 1);
  const TaskId first = MustInsert(store, kAlice, Spec({"first"}));
  const TaskId second = MustInsert(store, kAlice, Spec({"second"}));

  Status together = store.WriteTogether([&]() -> Status {
    REQUIRE(store.StartAttempt(first, 2000, {})->has_value());
    Result<std::vector<TaskId>> refused =
        store.FinishAttempt(running, 7, Exited(2000, 0), TaskState::kSucceeded, TaskReason::kExit);
    REQUIRE_FALSE(refused.ok());
    CHECK(refused.status().fault() == StoreFault::kNone);
    CHECK(refused.status().message().find("is not running attempt 7") != std::string::npos);
    REQUIRE(store.StartAttempt(second, 2000, {})->has_value());
    return Status::Ok();
  });
  REQUIRE_MESSAGE(together.ok(), together.message());
  CHECK(StateOf(store, first) == TaskState::kRunning);
  CHECK(StateOf(store, second) == TaskState::kRunning);
  CHECK(StateOf(store, running) == TaskState::kRunning);

  // The database fails an end that exits 99 (a trigger of the test's).
  PgQueryInt(conninfo,
             "CREATE FUNCTION refuse_99() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN "
             "IF NEW.exit_code = 99 THEN RAISE EXCEPTION 'refused by the test'; END IF; "
             "RETURN NEW; END $$; CREATE TRIGGER refuse_99 BEFORE UPDATE ON attempts "
             "FOR EACH ROW EXECUTE FUNCTION refuse_99(); SELECT 1");
  const TaskId third = MustInsert(store, kAlice, Spec({"third"}));
  const AttemptOutcome unstorable = Exited(3000, 99);
  together = store.WriteTogether([&]() -> Status {
    REQUIRE(store.StartAttempt(third, 3000, {})->has_value());
    Result<std::vector<TaskId>> failed =
        store.FinishAttempt(running, 1, unstorable, TaskState::kFailed, TaskReason::kExit);
    REQUIRE_FALSE(failed.ok());
    CHECK(failed.status().fault() != StoreFault::kNone);
    // The transaction is given up: what comes after fails at once, as the database would.
    CHECK_FALSE(store.SaveOutput(first, 1, StoredOutput{"out", "", ""}).ok());
    return Status::Ok();  // the caller goes on, as a turn of dispatch does with a failed end
  });
  REQUIRE_FALSE(together.ok());
  CHECK(together.fault() != StoreFault::kNone);
  CHECK(StateOf(store, third) == TaskState::kPending);  // its start was undone with the rest
  CHECK(StateOf(store, running) == TaskState::kRunning);
  CHECK_FALSE(store.SavedOutput(first, 1)->has_value());

  // The next transactions take a savepoint for each write again: while that end still fails, it
  // is undone alone, and the rest is stored.
  for (int turn = 0; turn < 30; ++turn) {
    CAPTURE(turn);
    const TaskId next = MustInsert(store, kAlice, Spec({"next"}));
    together = store.WriteTogether([&]() -> Status {
      REQUIRE(store.StartAttempt(next, 4000, {})->has_value());
      CHECK_FALSE(
          store.FinishAttempt(running, 1, unstorable, TaskState::kFailed, TaskReason::kExit).ok());
      return Status::Ok();
    });
    REQUIRE_MESSAGE(together.ok(), together.message());
    CHECK(StateOf(store, next) == TaskState::kRunning);
  }
  CHECK(StateOf(store, running) == TaskState::kRunning);
}

}  // namespace
}  // namespace tq
