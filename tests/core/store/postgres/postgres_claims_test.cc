// Claims of several hosts on one PostgreSQL store (SPEC 12): WriteTogether of two hosts runs side
// by side, each FirstReady passing over the task the other's claim holds; HoldQueues passes over
// a queue another host's claim holds, never waiting for it.
#include <doctest/doctest.h>

#include <atomic>
#include <chrono>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "core/store/postgres/joined_store.h"
#include "core/store/test_util.h"
#include "support/pg_server.h"
#include "support/skip.h"

namespace tq {
namespace {

using namespace test;  // NOLINT: the shared helpers of the store's tests

// True once `pred` holds, polled for at most a minute; false if it never did.
template <typename Pred>
bool Eventually(Pred pred) {
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::minutes(1);
  while (!pred()) {
    if (std::chrono::steady_clock::now() > deadline) return false;
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  return true;
}

// The id of the first ready task of `queue` (highest priority first) as `store` sees it; 0 when
// it sees none.
TaskId FirstReadyId(Store& store, const std::string& queue = "default") {
  Result<std::optional<Candidate>> c = store.FirstReady(queue, ReadyOrder::kHighestPriority);
  REQUIRE_MESSAGE(c.ok(), c.status().message());
  return c->has_value() ? (*c)->id : 0;
}

TEST_CASE("postgres: two hosts claim side by side, each passing over the task the other holds") {
  std::string why;
  const std::string conninfo = FreshSchemaUri(&why);
  if (conninfo.empty()) TQ_SKIP(why);
  std::unique_ptr<Store> alpha = MustJoin(conninfo, "alpha");
  std::unique_ptr<Store> beta = MustJoin(conninfo, "beta");
  const TaskId first = MustInsert(*alpha, kAlice, Spec({"first"}, "default", 1));
  const TaskId second = MustInsert(*alpha, kAlice, Spec({"second"}, "default", 2));

  TaskId beta_took = 0;
  Status claimed = alpha->WriteTogether([&]() -> Status {
    REQUIRE(FirstReadyId(*alpha) == first);
    // While alpha's claim is open, beta's runs whole: it does not wait for alpha's, and it
    // takes the next task instead of the one alpha holds.
    Status inner = beta->WriteTogether([&]() -> Status {
      beta_took = FirstReadyId(*beta);
      return beta->StartAttempt(beta_took, 1100, {}).status();
    });
    REQUIRE_MESSAGE(inner.ok(), inner.message());
    return alpha->StartAttempt(first, 1100, {}).status();
  });
  REQUIRE_MESSAGE(claimed.ok(), claimed.message());
  CHECK(beta_took == second);
  CHECK(MustGet(*beta, first).attempts.at(0).host == "alpha");
  CHECK(MustGet(*alpha, second).attempts.at(0).host == "beta");
  CHECK(FirstReadyId(*alpha) == 0);
}

TEST_CASE(
    "postgres: a claim passes over a queue another host's claim holds and holds the others at "
    "once") {
  std::string why;
  const std::string conninfo = FreshSchemaUri(&why);
  if (conninfo.empty()) TQ_SKIP(why);
  std::unique_ptr<Store> alpha = MustJoin(conninfo, "alpha");
  std::unique_ptr<Store> beta = MustJoin(conninfo, "beta");
  MustInsert(*alpha, kAlice, Spec({"a"}, "one"));
  MustInsert(*alpha, kAlice, Spec({"b"}, "two"));

  Status claimed = alpha->WriteTogether([&]() -> Status {
    Result<std::vector<std::string>> mine = alpha->HoldQueues({"one"});
    REQUIRE(mine.ok());
    CHECK(*mine == std::vector<std::string>{"one"});
    // beta's claim runs whole while alpha's is open: it holds "two", and "one" is passed over.
    std::vector<std::string> beta_held;
    Status other = beta->WriteTogether([&]() -> Status {
      Result<std::vector<std::string>> held = beta->HoldQueues({"one", "two", "three"});
      if (!held.ok()) return held.status();
      beta_held = *held;
      return Status::Ok();
    });
    REQUIRE_MESSAGE(other.ok(), other.message());
    // "three" has no task yet: it is made, so that the claims in it take turns too.
    CHECK(beta_held == std::vector<std::string>{"three", "two"});
    return Status::Ok();
  });
  REQUIRE_MESSAGE(claimed.ok(), claimed.message());
  // Once alpha's claim ended, "one" is held by the next claim that asks.
  Status after = beta->WriteTogether([&]() -> Status {
    Result<std::vector<std::string>> held = beta->HoldQueues({"one"});
    REQUIRE(held.ok());
    CHECK(*held == std::vector<std::string>{"one"});
    return Status::Ok();
  });
  REQUIRE_MESSAGE(after.ok(), after.message());
}

}  // namespace
}  // namespace tq
