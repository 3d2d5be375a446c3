// A task's later stages on a store shared by several hosts (SPEC 12, 13): they run on the host
// that ran its first stage, where its context is, and fail with reason context-lost once that
// host is fenced; never on another host with an empty context.
#include <doctest/doctest.h>

#include <memory>
#include <string>
#include <vector>

#include "core/store/postgres/joined_store.h"
#include "core/store/test_util.h"
#include "support/pg_server.h"
#include "support/skip.h"

namespace tq {
namespace {

using namespace test;  // NOLINT: the shared helpers of the store's tests

// A task of two stages, placed on no host, that runs after task `after` (0: none).
TaskSpec TwoStages(TaskId after = 0) {
  TaskSpec spec = Spec({});
  spec.stages = {StageSpec{"dump", {"dump"}, std::nullopt, std::nullopt, {}},
                 StageSpec{"gz", {"gz"}, std::nullopt, std::nullopt, {}}};
  if (after != 0) spec.after = {after};
  return spec;
}

// The first ready task of "default" that host `host` may take (its own and the unplaced ones).
TaskId ReadyFor(Store& store, const std::string& host) {
  Result<std::optional<Candidate>> c =
      store.FirstReady("default", kAlice.uid, ReadyOrder::kOldest, {}, ReadyPlaces{host, true});
  REQUIRE_MESSAGE(c.ok(), c.status().message());
  return c->has_value() ? (*c)->id : 0;
}

TEST_CASE(
    "postgres: a task's next stage runs where its first ran, and fails when that host is "
    "fenced") {
  std::string why;
  const std::string conninfo = FreshSchemaUri(&why);
  if (conninfo.empty()) TQ_SKIP(why);
  std::unique_ptr<Store> alpha = MustJoin(conninfo, "alpha");
  std::unique_ptr<Store> beta = MustJoin(conninfo, "beta");
  const TaskId staged = MustInsert(*alpha, kAlice, TwoStages());
  const TaskId after = MustInsert(*alpha, kAlice, Spec({"after"}));
  const TaskId dependent = MustInsert(*alpha, kAlice, TwoStages(staged));
  REQUIRE(ReadyFor(*beta, "beta") == staged);  // placed on no host: any host may take it

  const int attempt = MustStart(*alpha, staged, 1100);
  REQUIRE(alpha->AdvanceStage(staged, attempt, Exited(1200, 0)).ok());
  const Task advanced = MustGet(*beta, staged);
  CHECK(advanced.stage == 1);
  CHECK(advanced.spec.run_on == "alpha");
  CHECK(ReadyFor(*beta, "beta") == after);  // not the stage whose context is on alpha
  CHECK(ReadyFor(*alpha, "alpha") == staged);

  // While alpha is not fenced nothing is lost; once it is, the stage fails, and its dependent.
  CHECK(beta->EndContextLost(1300)->empty());
  Result<std::vector<HostRecord>> hosts = beta->Hosts(2000);
  REQUIRE(hosts.ok());
  int64_t alpha_beats = -1;
  for (const HostRecord& h : *hosts)
    if (h.name == "alpha") alpha_beats = h.beats;
  REQUIRE(beta->FenceHost("alpha", alpha_beats)->has_value());
  Result<std::vector<TaskId>> lost = beta->EndContextLost(1400);
  REQUIRE_MESSAGE(lost.ok(), lost.status().message());
  CHECK(Sorted(*lost) == Sorted({staged, dependent}));
  const Task failed = MustGet(*beta, staged);
  CHECK(failed.state == TaskState::kFailed);
  CHECK(failed.reason == TaskReason::kContextLost);
  CHECK(StateOf(*beta, after) == TaskState::kPending);
}

}  // namespace
}  // namespace tq
