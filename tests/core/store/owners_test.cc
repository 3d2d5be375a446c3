// What the store knows per owner, for many users under one daemon (SPEC 8): who has ready tasks
// and each one's first, running and pending counts, and the output bytes kept per owner.
#include <doctest/doctest.h>

#include <map>
#include <vector>

#include "core/store/conformance.h"
#include "core/store/test_util.h"

namespace tq {
namespace {

using namespace test;  // NOLINT: the shared helpers of the store's tests

const Owner kCarol{1002, 1002, "carol"};

STORE_TEST_CASE("ReadyOwners and FirstReady of one owner") {
  auto store = OpenStore();
  CHECK(store->ReadyOwners("default")->empty());
  const TaskId a1 = MustInsert(*store, kAlice, Spec({"a1"}, "default", 3));
  const TaskId b1 = MustInsert(*store, kBob, Spec({"b1"}, "default", 4));
  const TaskId a2 = MustInsert(*store, kAlice, Spec({"a2"}, "default", 1));
  MustInsert(*store, kCarol, Spec({"c"}, "other", 1));
  CHECK(*store->ReadyOwners("default") == std::vector<uint32_t>{kAlice.uid, kBob.uid});
  CHECK(*store->ReadyOwners("other") == std::vector<uint32_t>{kCarol.uid});

  auto first = [&](const Owner& o, ReadyOrder order) {
    auto c = store->FirstReady("default", o.uid, order, {});
    REQUIRE(c.ok());
    return c->has_value() ? std::optional<TaskId>((*c)->id) : std::nullopt;
  };
  CHECK(first(kAlice, ReadyOrder::kHighestPriority) == a2);
  CHECK(first(kAlice, ReadyOrder::kOldest) == a1);
  CHECK(first(kBob, ReadyOrder::kHighestPriority) == b1);
  CHECK(first(kCarol, ReadyOrder::kOldest) == std::nullopt);
  auto c = store->FirstReady("default", kBob.uid, ReadyOrder::kOldest, {});
  CHECK((*c)->owner_uid == kBob.uid);
  // Across owners, as before.
  CHECK(Ready(*store, "default", ReadyOrder::kHighestPriority) == a2);
  CHECK(Ready(*store, "default", ReadyOrder::kOldest) == a1);

  MustStart(*store, a2, 1000);
  MustStart(*store, a1, 1000);
  CHECK(*store->ReadyOwners("default") == std::vector<uint32_t>{kBob.uid});
  CHECK(*store->RunningByOwner() == std::map<uint32_t, int>{{kAlice.uid, 2}});
}

STORE_TEST_CASE("Running counts the running attempts per queue and per owner in one read") {
  auto store = OpenStore();
  CHECK(store->Running()->by_queue.empty());
  MustStart(*store, MustInsert(*store, kAlice, Spec({"a"}, "q1")), 1000);
  MustStart(*store, MustInsert(*store, kAlice, Spec({"b"}, "q2")), 1000);
  MustStart(*store, MustInsert(*store, kBob, Spec({"c"}, "q2")), 1000);
  MustInsert(*store, kCarol, Spec({"pending"}, "q1"));
  Result<RunningTally> tally = store->Running();
  REQUIRE(tally.ok());
  CHECK(tally->by_queue == std::map<std::string, int>{{"q1", 1}, {"q2", 2}});
  CHECK(tally->by_owner == std::map<uint32_t, int>{{kAlice.uid, 2}, {kBob.uid, 1}});
  CHECK(tally->by_queue == *store->RunningCounts());
  CHECK(tally->by_owner == *store->RunningByOwner());
}

STORE_TEST_CASE("PendingOf counts an owner's pending tasks, ready or waiting") {
  auto store = OpenStore();
  CHECK(*store->PendingOf(kAlice.uid) == 0);
  TaskSpec later = Spec({"later"});
  later.not_before = 1000000;
  const TaskId now = MustInsert(*store, kAlice, Spec({"now"}));
  MustInsert(*store, kAlice, later);
  MustInsert(*store, kBob, Spec({"b"}));
  CHECK(*store->PendingOf(kAlice.uid) == 2);
  CHECK(*store->PendingOf(kBob.uid) == 1);
  StartAndFinish(*store, now, TaskState::kSucceeded, 1000);
  CHECK(*store->PendingOf(kAlice.uid) == 1);
}

STORE_TEST_CASE("OutputOf sums the output of an owner's attempts until they are purged") {
  auto store = OpenStore();
  const TaskId a = MustInsert(*store, kAlice, Spec({"a"}));
  TaskSpec flaky = Spec({"flaky"});
  flaky.retry.retries = 1;
  const TaskId f = MustInsert(*store, kAlice, flaky);
  const TaskId b = MustInsert(*store, kBob, Spec({"b"}));
  CHECK(*store->OutputOf(kAlice.uid) == 0);

  AttemptOutcome out = Exited(1010, 1);
  out.output_bytes = 100;
  REQUIRE(
      store
          ->FinishAttempt(a, MustStart(*store, a, 1000), out, TaskState::kFailed, TaskReason::kExit)
          .ok());
  out.output_bytes = 30;  // a retried attempt's output is kept too
  REQUIRE(store->RetryLater(f, MustStart(*store, f, 1000), out, 1000, kDefaultPriority).ok());
  REQUIRE(*store->PromoteDue(1000, 10) >= 0);
  out.output_bytes = 7;
  REQUIRE(
      store
          ->FinishAttempt(f, MustStart(*store, f, 1100), out, TaskState::kFailed, TaskReason::kExit)
          .ok());
  out.output_bytes = 5;
  REQUIRE(
      store
          ->FinishAttempt(b, MustStart(*store, b, 1000), out, TaskState::kFailed, TaskReason::kExit)
          .ok());
  CHECK(*store->OutputOf(kAlice.uid) == 137);
  CHECK(*store->OutputOf(kBob.uid) == 5);

  // Purged rows take their bytes with them.
  auto purged = store->PurgeEnded(2000, 100);
  REQUIRE(purged.ok());
  CHECK(purged->size() == 3);
  CHECK(*store->OutputOf(kAlice.uid) == 0);
  CHECK(*store->OutputOf(kBob.uid) == 0);
}

STORE_TEST_CASE("OutputOf gives back the bytes of attempts a keyed replace drops") {
  auto store = OpenStore();
  const TaskId id = MustSubmit(*store, kAlice, Keyed("k", 1, {"old"}), 1000).id;
  AttemptOutcome out = Exited(1010, 1);
  out.output_bytes = 40;
  REQUIRE(store
              ->FinishAttempt(id, MustStart(*store, id, 1000), out, TaskState::kFailed,
                              TaskReason::kExit)
              .ok());
  CHECK(*store->OutputOf(kAlice.uid) == 40);
  // The same version again replaces the failed request, and its attempts with it.
  const SubmitOutcome again = MustSubmit(*store, kAlice, Keyed("k", 1, {"new"}), 2000);
  CHECK(again.id == id);
  CHECK(MustGet(*store, id).attempts.empty());
  CHECK(*store->OutputOf(kAlice.uid) == 0);
}

}  // namespace
}  // namespace tq
