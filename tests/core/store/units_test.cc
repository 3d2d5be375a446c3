// Resource units in the store (SPEC 14): a task's request, the units each attempt holds while
// it runs, the different requests of the ready tasks, and the ready set passing over requests
// whose units are not free.
#include <doctest/doctest.h>

#include <vector>

#include "core/store/conformance.h"
#include "core/store/test_util.h"

namespace tq {
namespace {

using namespace test;  // NOLINT: the shared helpers of the store's tests

TaskSpec Using(std::vector<std::string> argv, UnitRequest use, int priority = 3) {
  TaskSpec spec = Spec(std::move(argv), "default", priority);
  spec.use = std::move(use);
  return spec;
}

STORE_TEST_CASE("a task's request and its attempts' units are kept, and held only while running") {
  auto store = OpenStore();
  const TaskId a = MustInsert(*store, kAlice, Using({"a"}, {{"gpu", 2}, {"licence", 1}}));
  const TaskId b = MustInsert(*store, kBob, Using({"b"}, {{"gpu", 1}}));
  MustInsert(*store, kBob, Spec({"plain"}));
  CHECK(MustGet(*store, a).spec.use == UnitRequest{{"gpu", 2}, {"licence", 1}});
  CHECK(*store->ReadyUnitRequests() == std::vector<std::string>{"gpu=1", "gpu=2 licence=1"});
  CHECK(store->HeldUnits()->empty());

  const UnitGrant grant{{"gpu", {"0", "3"}}, {"licence", {"x"}}};
  REQUIRE(store->StartAttempt(a, 1000, grant)->has_value());
  REQUIRE(store->StartAttempt(b, 1000, {{"gpu", {"1"}}})->has_value());
  CHECK(store->ReadyUnitRequests()->empty());
  auto held = store->HeldUnits();
  REQUIRE(held->size() == 2);
  CHECK((*held)[0].task == a);
  CHECK((*held)[0].owner_uid == kAlice.uid);
  CHECK((*held)[0].units == grant);
  CHECK((*held)[1].units == UnitGrant{{"gpu", {"1"}}});

  // A retry gives them back; the attempt keeps its record of them.
  REQUIRE(store->RetryLater(a, 1, Exited(2000, 1), 5000, 3).ok());
  REQUIRE(store->HeldUnits()->size() == 1);
  CHECK(MustGet(*store, a).attempts[0].units == grant);
  // An end gives them back too.
  REQUIRE(
      store->FinishAttempt(b, 1, Exited(2000, 0), TaskState::kSucceeded, TaskReason::kExit).ok());
  CHECK(store->HeldUnits()->empty());
  CHECK(MustGet(*store, b).attempts[0].units == UnitGrant{{"gpu", {"1"}}});
}

STORE_TEST_CASE("FirstReady passes over the requests named unfit, in either order") {
  auto store = OpenStore();
  const TaskId big = MustInsert(*store, kAlice, Using({"big"}, {{"gpu", 2}}, 1));
  const TaskId small = MustInsert(*store, kAlice, Using({"small"}, {{"gpu", 1}}, 2));
  const TaskId plain = MustInsert(*store, kAlice, Spec({"plain"}, "default", 3));
  auto first = [&](ReadyOrder order, const std::vector<std::string>& unfit) {
    auto c = store->FirstReady("default", kAlice.uid, order, unfit);
    REQUIRE(c.ok());
    return c->has_value() ? std::optional<TaskId>((*c)->id) : std::nullopt;
  };
  for (ReadyOrder order : {ReadyOrder::kHighestPriority, ReadyOrder::kOldest}) {
    CHECK(first(order, {}) == big);
    CHECK(first(order, {"gpu=2"}) == small);
    CHECK(first(order, {"gpu=2", "gpu=1"}) == plain);
    CHECK(first(order, {"gpu=1"}) == big);
    CHECK(first(order, {"gpu=1 licence=1", "gpu"}) == big);  // no request spelled so
    CHECK(first(order, {"a\"b\\", "gpu=2"}) == small);       // quoted as JSON, never broken
  }
}

STORE_TEST_CASE("thousands of different requests passed over still leave the plain task") {
  auto store = OpenStore();
  std::vector<std::string> unfit;
  for (int i = 1; i <= 3000; ++i) {
    const UnitRequest use{{"gpu", 1 + i % 1000}, {"r" + std::to_string(i / 1000), 1}};
    MustInsert(*store, kAlice, Using({"u"}, use, 1));
    unfit.push_back(EncodeUnitRequest(use));
  }
  const TaskId plain = MustInsert(*store, kAlice, Spec({"plain"}, "default", 5));
  CHECK(store->ReadyUnitRequests()->size() == 3000);
  auto c = store->FirstReady("default", kAlice.uid, ReadyOrder::kHighestPriority, unfit);
  REQUIRE(c.ok());
  REQUIRE(c->has_value());
  CHECK((*c)->id == plain);
}

}  // namespace
}  // namespace tq
