// GetSummaries reads many tasks at once (a wait for a batch): each as GetSummary reads it, by
// id, leaving out ids the store does not hold, however many are asked.
#include <doctest/doctest.h>

#include <vector>

#include "core/store/conformance.h"
#include "core/store/test_util.h"

namespace tq {
namespace {

using namespace test;  // NOLINT: the shared helpers of the store's tests

STORE_TEST_CASE("GetSummaries reads each task as GetSummary does, by id, and leaves out others") {
  auto store = OpenStore();
  TaskSpec labelled = Spec({"a"});
  labelled.labels = {"x", "y"};
  const TaskId plain = MustInsert(*store, kAlice, labelled);
  TaskSpec staged = Spec({});
  staged.stages = {StageSpec{"one", {"true"}, std::nullopt, std::nullopt, {}},
                   StageSpec{"two", {}, "exit 0", 5000, {}}};
  const TaskId stages = MustInsert(*store, kBob, staged);
  const TaskId ran = MustInsert(*store, kAlice, Spec({"b"}));
  MustStart(*store, ran, 1000);
  REQUIRE(store->RetryLater(ran, 1, Exited(1100, 1), 1100, 3).ok());
  MustStart(*store, ran, 1200);
  MustStart(*store, stages, 1300);

  // Asked out of order, one twice, one the store does not hold.
  Result<std::vector<Task>> read = store->GetSummaries({ran, 999999, plain, stages, ran});
  REQUIRE_MESSAGE(read.ok(), read.status().message());
  REQUIRE(read->size() == 3);
  const std::vector<TaskId> ids = {plain, stages, ran};
  for (size_t i = 0; i < ids.size(); ++i) {
    CAPTURE(ids[i]);
    const Task& got = (*read)[i];
    const Task one = *store->GetSummary(ids[i]);
    CHECK(got.id == one.id);
    CHECK(got.owner.uid == one.owner.uid);
    CHECK(got.state == one.state);
    CHECK(got.attempt_count == one.attempt_count);
    CHECK(got.spec.labels == one.spec.labels);
    CHECK(got.spec.stages.size() == one.spec.stages.size());
    for (size_t s = 0; s < got.spec.stages.size(); ++s)
      CHECK(got.spec.stages[s].name == one.spec.stages[s].name);
    REQUIRE(got.attempts.size() == one.attempts.size());
    for (size_t a = 0; a < got.attempts.size(); ++a) {
      CHECK(got.attempts[a].number == one.attempts[a].number);
      CHECK(got.attempts[a].started == one.attempts[a].started);
      CHECK(got.attempts[a].ended == one.attempts[a].ended);
      CHECK(got.attempts[a].exit_code == one.attempts[a].exit_code);
    }
  }
  CHECK((*read)[2].attempts.size() == 2);
  CHECK(store->GetSummaries({})->empty());
}

STORE_TEST_CASE("GetSummaries reads more tasks than one statement asks for") {
  auto store = OpenStore();
  std::vector<TaskSpec> specs(1203, Spec({"x"}));
  Result<std::vector<TaskId>> ids = store->SubmitBatch(kAlice, specs, 1000);
  REQUIRE(ids.ok());
  std::vector<TaskId> asked(ids->rbegin(), ids->rend());  // newest first
  Result<std::vector<Task>> read = store->GetSummaries(asked);
  REQUIRE(read.ok());
  REQUIRE(read->size() == ids->size());
  for (size_t i = 0; i < ids->size(); ++i) CHECK((*read)[i].id == (*ids)[i]);
}

STORE_TEST_CASE("GetSummaries reads an id asked many times once, whatever the statements") {
  auto store = OpenStore();
  const TaskId id = MustInsert(*store, kAlice, Spec({"a"}));
  // More copies than one statement asks for: each statement would read it again.
  Result<std::vector<Task>> read = store->GetSummaries(std::vector<TaskId>(1201, id));
  REQUIRE_MESSAGE(read.ok(), read.status().message());
  REQUIRE(read->size() == 1);
  CHECK(read->front().id == id);
}

}  // namespace
}  // namespace tq
