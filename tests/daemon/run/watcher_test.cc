#include "daemon/run/watcher.h"

#include <doctest/doctest.h>

#include "core/store/sqlite/open.h"
#include "support/fake_clock.h"

namespace tq {
namespace {

constexpr int64_t kMinuteMs = 60 * 1000;
constexpr int64_t kHourMs = 60 * kMinuteMs;

// A watcher over an in-memory store, recording what it reports.
struct WatcherFixture {
  FakeClock clock;
  std::unique_ptr<Store> store;
  std::vector<TaskId> ended, purged;
  ConfigPtr config;
  std::unique_ptr<Watcher> watcher;
  Owner owner{1000, 1000, "alice"};

  explicit WatcherFixture(int batch = 500) {
    auto s = OpenSqliteStore(":memory:", /*durability_full=*/false);
    REQUIRE_MESSAGE(s.ok(), s.status().message());
    store = std::move(*s);
    Config c;
    c.success_retention_ms = 24 * kHourMs;
    c.purge_after_ms = 7 * 24 * kHourMs;
    config = std::make_shared<const Config>(c);
    watcher = std::make_unique<Watcher>(
        *store, clock, config,
        [this](const std::vector<TaskId>& ids) {
          ended.insert(ended.end(), ids.begin(), ids.end());
        },
        [this](const std::vector<TaskId>& ids) {
          purged.insert(purged.end(), ids.begin(), ids.end());
        },
        batch);
  }

  TaskId Submit(int64_t ttl_ms = 0, std::vector<TaskId> after = {}) {
    TaskSpec spec;
    spec.argv = {"true"};
    spec.pending_ttl_ms = ttl_ms;
    spec.after = std::move(after);
    auto id = store->Insert(owner, spec, clock.WallNow());
    REQUIRE_MESSAGE(id.ok(), id.status().message());
    return *id;
  }

  TaskId RunToSuccess() {
    const TaskId id = Submit();
    auto attempt = store->StartAttempt(id, clock.WallNow(), {});
    REQUIRE(attempt.ok());
    REQUIRE(attempt->has_value());
    AttemptOutcome ok;
    ok.ended = clock.WallNow();
    ok.exit_code = 0;
    ok.reason = AttemptReason::kExit;
    REQUIRE(store->FinishAttempt(id, **attempt, ok, TaskState::kSucceeded, TaskReason::kExit).ok());
    return id;
  }

  TaskState State(TaskId id) {
    auto t = store->Get(id);
    REQUIRE(t.ok());
    return t->state;
  }
};

TEST_CASE("pending_ttl fails a task that never started, and its dependents with it") {
  WatcherFixture f;
  const TaskId a = f.Submit(kMinuteMs);
  const TaskId b = f.Submit(0, {a});
  const TaskId patient = f.Submit(0);
  CHECK(f.watcher->NextDue() == f.clock.WallNow() + kMinuteMs);

  f.clock.Advance(kMinuteMs - 1);
  CHECK(f.watcher->RunDue().ok());
  CHECK(f.ended.empty());
  CHECK(f.State(a) == TaskState::kPending);

  f.clock.Advance(1);
  CHECK(f.watcher->RunDue().ok());
  CHECK(f.State(a) == TaskState::kFailed);
  CHECK(f.store->Get(a)->reason == TaskReason::kExpiredPending);
  CHECK(f.State(b) == TaskState::kFailed);
  CHECK(f.store->Get(b)->reason == TaskReason::kDependencyFailed);
  CHECK(f.State(patient) == TaskState::kPending);
  CHECK(f.ended.size() == 2);
  CHECK(std::count(f.ended.begin(), f.ended.end(), a) == 1);
  CHECK(std::count(f.ended.begin(), f.ended.end(), b) == 1);
}

TEST_CASE("a task that started in time is not failed by its ttl") {
  WatcherFixture f;
  const TaskId a = f.Submit(kMinuteMs);
  REQUIRE(f.store->StartAttempt(a, f.clock.WallNow(), {})->has_value());
  f.clock.Advance(2 * kMinuteMs);
  CHECK(f.watcher->RunDue().ok());
  CHECK(f.State(a) == TaskState::kRunning);
  CHECK(f.ended.empty());
}

TEST_CASE("succeeded expires after success_retention, ended tasks are purged after purge_after") {
  WatcherFixture f;
  const TaskId done = f.RunToSuccess();
  const TaskId cancelled = f.Submit();
  REQUIRE_FALSE(
      f.store
          ->EndPending(cancelled, TaskState::kCancelled, TaskReason::kCancelled, f.clock.WallNow())
          ->empty());
  CHECK(f.watcher->NextDue() == f.clock.WallNow() + 24 * kHourMs);

  f.clock.Advance(24 * kHourMs);
  CHECK(f.watcher->RunDue().ok());
  CHECK(f.State(done) == TaskState::kExpired);
  CHECK(f.ended == std::vector<TaskId>{done});  // expired is a new terminal state: told of
  CHECK(f.purged.empty());

  f.clock.Advance(6 * 24 * kHourMs);  // the cancelled one is 7 days old; the expired one ended 7
  CHECK(f.watcher->RunDue().ok());    // days ago too (its finish time is kept)
  CHECK_FALSE(f.store->Get(cancelled).ok());
  CHECK(std::count(f.purged.begin(), f.purged.end(), cancelled) == 1);
  const auto next = f.watcher->NextDue();
  CHECK((!next || *next >= f.clock.WallNow()));
}

TEST_CASE("work larger than a batch is done over several turns, each due at once") {
  WatcherFixture f(/*batch=*/3);
  std::vector<TaskId> ids;
  for (int i = 0; i < 7; ++i) ids.push_back(f.Submit(kMinuteMs));
  f.clock.Advance(kMinuteMs);
  int turns = 0;
  while (f.ended.size() < ids.size() && turns < 10) {
    CHECK(f.watcher->RunDue().ok());
    ++turns;
    if (f.ended.size() < ids.size()) CHECK(*f.watcher->NextDue() <= f.clock.WallNow());
  }
  CHECK(turns == 3);
  CHECK(f.ended.size() == 7);
  const auto next = f.watcher->NextDue();  // now only their purge, a week away
  REQUIRE(next);
  CHECK(*next == f.clock.WallNow() + 7 * 24 * kHourMs);
}

}  // namespace
}  // namespace tq
