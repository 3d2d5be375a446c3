// Claims of several hosts on one PostgreSQL store (SPEC 12): ClaimTogether of two hosts runs side
// by side, each FirstReady passing over the task the other's claim holds; HoldQueues makes the
// claims in one queue take turns, and leaves the other queues' claims alone.
#include <doctest/doctest.h>

#include <atomic>
#include <chrono>
#include <memory>
#include <string>
#include <thread>

#include "core/store/postgres/open.h"
#include "core/store/test_util.h"
#include "support/pg_server.h"
#include "support/skip.h"

namespace tq {
namespace {

using namespace test;  // NOLINT: the shared helpers of the store's tests

// A store on `conninfo`, joined as host `host`.
std::unique_ptr<Store> MustJoin(const std::string& conninfo, const std::string& host) {
  Result<std::unique_ptr<Store>> store = OpenPostgresStore(conninfo, false);
  REQUIRE_MESSAGE(store.ok(), store.status().message());
  Status joined = (*store)->JoinHost(host, "0.1.0", 4, 1000);
  REQUIRE_MESSAGE(joined.ok(), joined.message());
  return std::move(*store);
}

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
  Status claimed = alpha->ClaimTogether([&]() -> Status {
    REQUIRE(FirstReadyId(*alpha) == first);
    // While alpha's claim is open, beta's runs whole: it does not wait for alpha's, and it
    // takes the next task instead of the one alpha holds.
    Status inner = beta->ClaimTogether([&]() -> Status {
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
    "postgres: claims holding one queue take turns, and a claim in another queue does not "
    "wait") {
  std::string why;
  const std::string conninfo = FreshSchemaUri(&why);
  if (conninfo.empty()) TQ_SKIP(why);
  std::unique_ptr<Store> alpha = MustJoin(conninfo, "alpha");
  std::unique_ptr<Store> beta = MustJoin(conninfo, "beta");
  MustInsert(*alpha, kAlice, Spec({"a"}, "one"));
  MustInsert(*alpha, kAlice, Spec({"b"}, "two"));

  std::atomic<bool> beta_held{false};
  std::thread waiter;
  Status claimed = alpha->ClaimTogether([&]() -> Status {
    REQUIRE(alpha->HoldQueues({"one"}).ok());
    // Another queue: beta holds it at once.
    Status other = beta->ClaimTogether([&] { return beta->HoldQueues({"two"}); });
    REQUIRE_MESSAGE(other.ok(), other.message());
    // The same queue: beta waits until alpha's claim ends.
    waiter = std::thread([&] {
      Status s = beta->ClaimTogether([&] { return beta->HoldQueues({"one", "two"}); });
      CHECK_MESSAGE(s.ok(), s.message());
      beta_held = true;
    });
    // A session of this schema waits for a row of its queues table (it holds the row's tuple
    // lock while it waits for the transaction holding the row).
    const std::string waiting =
        "SELECT count(*) FROM pg_locks AS w JOIN pg_locks AS t ON t.pid = w.pid AND "
        "t.locktype = 'tuple' WHERE NOT w.granted AND t.relation = CAST('queues' AS regclass)";
    CHECK(Eventually([&] { return PgQueryInt(conninfo, waiting) == 1; }));
    CHECK_FALSE(beta_held);
    return Status::Ok();
  });
  REQUIRE_MESSAGE(claimed.ok(), claimed.message());
  waiter.join();
  CHECK(beta_held);
}

}  // namespace
}  // namespace tq
