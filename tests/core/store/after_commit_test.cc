// The store's outbox (SPEC 6): what a change tells or does outside the store runs once its
// transaction commits, never when it rolls back, and at once outside a transaction.
#include <string>
#include <vector>

#include "core/store/conformance.h"
#include "core/store/test_util.h"
#include "support/refused_commits.h"

namespace tq::test {
namespace {

STORE_TEST_CASE("an effect added inside WriteTogether runs after the commit, in order") {
  auto store = OpenStore();
  std::vector<std::string> seen;
  const Status st = store->WriteTogether([&] {
    MustInsert(*store, kAlice, Spec({"a"}));
    store->AfterCommit([&] { seen.push_back("first"); });
    store->AfterCommit([&] { seen.push_back("second"); });
    seen.push_back("body");
    return Status::Ok();
  });
  REQUIRE(st.ok());
  CHECK(seen == std::vector<std::string>{"body", "first", "second"});
}

STORE_TEST_CASE("effects are dropped when the body or the commit fails, and never run later") {
  auto store = OpenStore();
  int runs = 0;
  CHECK_FALSE(store
                  ->WriteTogether([&] {
                    store->AfterCommit([&] { ++runs; });
                    return Status::Invalid("turn", "undone on purpose");
                  })
                  .ok());
  {
    RefusedCommits refused(*store);
    TaskId id = 0;
    CHECK_FALSE(store
                    ->WriteTogether([&] {
                      id = MustInsert(*store, kAlice, Spec({"a"}));
                      store->AfterCommit([&] { ++runs; });
                      return Status::Ok();
                    })
                    .ok());
    CHECK(refused.refused == 1);
    CHECK(store->Get(id).status().code() == ErrorCode::kNotFound);
  }
  CHECK(runs == 0);
  // The next transaction that commits runs its own effects only.
  REQUIRE(store
              ->WriteTogether([&] {
                store->AfterCommit([&] { runs += 10; });
                return Status::Ok();
              })
              .ok());
  CHECK(runs == 10);
}

STORE_TEST_CASE("outside a transaction an effect runs at once, and its own writes commit") {
  auto store = OpenStore();
  TaskId id = 0;
  store->AfterCommit([&] { id = MustInsert(*store, kAlice, Spec({"a"})); });
  REQUIRE(id != 0);
  CHECK(StateOf(*store, id) == TaskState::kPending);
  // An effect of a transaction writes after it, in a transaction of its own.
  TaskId later = 0;
  REQUIRE(store
              ->WriteTogether([&] {
                store->AfterCommit([&] { later = MustInsert(*store, kBob, Spec({"b"})); });
                return Status::Ok();
              })
              .ok());
  REQUIRE(later != 0);
  CHECK(StateOf(*store, later) == TaskState::kPending);
}

}  // namespace
}  // namespace tq::test
