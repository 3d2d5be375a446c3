// Placement in the store (SPEC 12): a task placed on a host is found only by that host's look at
// the ready set, a task placed on no host by every look that takes unplaced tasks, and the two
// parts are merged in the chooser's order.
#include <doctest/doctest.h>

#include <string>
#include <vector>

#include "core/store/conformance.h"
#include "core/store/test_util.h"

namespace tq {
namespace {

using namespace test;  // NOLINT: the shared helpers of the store's tests

// The first ready task of alice's in the default queue that `places` sees, in `order`.
std::optional<TaskId> First(Store& store, const ReadyPlaces& places,
                            ReadyOrder order = ReadyOrder::kHighestPriority) {
  Result<std::optional<Candidate>> c = store.FirstReady("default", kAlice.uid, order, {}, places);
  REQUIRE_MESSAGE(c.ok(), c.status().message());
  if (!c->has_value()) return std::nullopt;
  return (*c)->id;
}

// A spec placed on `host` ("" for none) at `priority`.
TaskSpec Placed(const std::string& host, int priority) {
  TaskSpec spec = Spec({"x"});
  spec.run_on = host;
  spec.priority = priority;
  return spec;
}

STORE_TEST_CASE("a task placed on a host is ready only to that host, an unplaced one to any") {
  auto store = OpenStore();
  const TaskId on_a = MustInsert(*store, kAlice, Placed("a", 3));
  CHECK(MustGet(*store, on_a).spec.run_on == "a");
  CHECK(First(*store, ReadyPlaces{"a", true}) == on_a);
  CHECK(First(*store, ReadyPlaces{"a", false}) == on_a);
  CHECK_FALSE(First(*store, ReadyPlaces{"b", true}).has_value());
  CHECK_FALSE(First(*store, ReadyPlaces()).has_value());  // one host's look: unplaced only

  const TaskId anywhere = MustInsert(*store, kAlice, Placed("", 3));
  CHECK(MustGet(*store, anywhere).spec.run_on.empty());
  CHECK(First(*store, ReadyPlaces{"b", true}) == anywhere);
  CHECK_FALSE(First(*store, ReadyPlaces{"b", false}).has_value());
  CHECK(First(*store, ReadyPlaces()) == anywhere);
}

STORE_TEST_CASE("a host's placed and unplaced tasks are weighed in the chooser's order") {
  auto store = OpenStore();
  const TaskId old_low = MustInsert(*store, kAlice, Placed("", 5));
  const TaskId new_high = MustInsert(*store, kAlice, Placed("a", 1));
  const ReadyPlaces a{"a", true};
  CHECK(First(*store, a, ReadyOrder::kHighestPriority) == new_high);
  CHECK(First(*store, a, ReadyOrder::kOldest) == old_low);
  // Once started, the placed task leaves the ready set and the unplaced one is next.
  CHECK(MustStart(*store, new_high, 1000) == 1);
  CHECK(First(*store, a, ReadyOrder::kHighestPriority) == old_low);
}

STORE_TEST_CASE("a placed task keeps its host through a retry") {
  auto store = OpenStore();
  TaskSpec spec = Placed("a", 3);
  spec.retry.retries = 1;
  const TaskId id = MustInsert(*store, kAlice, spec);
  CHECK(MustStart(*store, id, 1000) == 1);
  REQUIRE(store->RetryLater(id, 1, Exited(2000, 1), 2000, 3).ok());
  CHECK(First(*store, ReadyPlaces{"a", false}) == id);
  CHECK_FALSE(First(*store, ReadyPlaces{"b", true}).has_value());
  CHECK(MustGet(*store, id).spec.run_on == "a");
}

}  // namespace
}  // namespace tq
