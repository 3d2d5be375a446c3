// The store's hosts (SPEC 12): joining, heartbeats, the hosts list, the attempts each host runs,
// and fencing a silent host so its attempts pass to the host that rescues them.
#include <doctest/doctest.h>

#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "core/store/conformance.h"
#include "core/store/test_util.h"

using namespace tq;
using namespace tq::test;

namespace {

// SQLite's file is one machine's: its clock is the one tqd passes in. PostgreSQL keeps its own.
bool StoreKeepsItsClock() {
  return CurrentBackend()->name != "sqlite";
}

std::vector<HostRecord> MustHosts(Store& store, WallMs now = 5000) {
  Result<std::vector<HostRecord>> hosts = store.Hosts(now);
  REQUIRE_MESSAGE(hosts.ok(), hosts.status().message());
  return *hosts;
}

void MustJoin(Store& store, const std::string& host, WallMs now = 1000) {
  Status s = store.JoinHost(host, "0.1.0", 4, now);
  REQUIRE_MESSAGE(s.ok(), s.message());
}

// The ids of the attempts `store` holds as running on its host.
std::vector<TaskId> RunningIds(Store& store) {
  Result<std::vector<RunningAttempt>> running = store.RunningAttempts();
  REQUIRE_MESSAGE(running.ok(), running.status().message());
  std::vector<TaskId> ids;
  for (const RunningAttempt& a : *running) ids.push_back(a.task_id);
  return ids;
}

AttemptOutcome Lost(WallMs ended) {
  AttemptOutcome out;
  out.ended = ended;
  out.reason = AttemptReason::kLost;
  return out;
}

}  // namespace

STORE_TEST_CASE("hosts: a host joins, beats, and is listed with the attempts it runs") {
  auto store = OpenStore();
  CHECK(MustHosts(*store).empty());
  MustJoin(*store, "alpha", 1000);
  std::vector<HostRecord> hosts = MustHosts(*store);
  REQUIRE(hosts.size() == 1);
  CHECK(hosts[0].name == "alpha");
  CHECK(hosts[0].version == "0.1.0");
  CHECK(hosts[0].epoch == 1);
  CHECK(hosts[0].beats == 0);
  CHECK(hosts[0].started == 1000);
  const WallMs joined = hosts[0].heartbeat;
  if (!StoreKeepsItsClock()) {
    CHECK(joined == 1000);
    CHECK(hosts[0].silent_ms == 4000);
  }
  CHECK(hosts[0].max_running == 4);
  CHECK(hosts[0].running == 0);

  const TaskId id = MustInsert(*store, kAlice, Spec({"x"}));
  MustStart(*store, id, 1500);
  Result<std::optional<WallMs>> beat = store->Heartbeat(6, 2000);
  REQUIRE(beat.ok());
  REQUIRE(beat->has_value());
  hosts = MustHosts(*store);
  REQUIRE(hosts.size() == 1);
  CHECK(hosts[0].beats == 1);
  CHECK(hosts[0].heartbeat == **beat);  // the time it returned
  if (StoreKeepsItsClock()) {
    CHECK(**beat >= joined);
    CHECK(hosts[0].silent_ms >= 0);
    CHECK(hosts[0].silent_ms < 60 * 1000);  // read just after, whatever time tqd passed in
  } else {
    CHECK(**beat == 2000);
  }
  CHECK(hosts[0].started == 1000);
  CHECK(hosts[0].max_running == 6);
  CHECK(hosts[0].running == 1);
  CHECK(RunningIds(*store) == std::vector<TaskId>{id});

  REQUIRE(
      store->FinishAttempt(id, 1, Exited(2100, 0), TaskState::kSucceeded, TaskReason::kExit).ok());
  CHECK(MustHosts(*store)[0].running == 0);
}

STORE_TEST_CASE("hosts: joining again takes the next epoch and keeps the host's running attempts") {
  auto store = OpenStore();
  const TaskId early = MustInsert(*store, kAlice, Spec({"early"}));
  MustStart(*store, early, 900);  // before any host joined: host ""
  MustJoin(*store, "alpha", 1000);
  CHECK(RunningIds(*store) == std::vector<TaskId>{early});
  const TaskId late = MustInsert(*store, kAlice, Spec({"late"}));
  MustStart(*store, late, 1100);
  MustJoin(*store, "alpha", 5000);  // a restart
  std::vector<HostRecord> hosts = MustHosts(*store);
  REQUIRE(hosts.size() == 1);
  CHECK(hosts[0].epoch == 2);
  CHECK(hosts[0].beats == 0);
  CHECK(hosts[0].started == 5000);
  CHECK(hosts[0].running == 2);
  CHECK(RunningIds(*store) == std::vector<TaskId>{early, late});
}

STORE_TEST_CASE("hosts: a name that is no host name is refused, naming it, and nothing joins") {
  auto store = OpenStore();
  for (const std::string& bad :
       {std::string(), std::string("two words"), std::string("-dash"), std::string(".dot"),
        std::string("caf\xe9"), std::string(65, 'h'), std::string("a'b")}) {
    CAPTURE(bad);
    Status s = store->JoinHost(bad, "0.1.0", 4, 1000);
    CHECK(s.code() == ErrorCode::kInvalid);
    CHECK(s.field() == "host");
    CHECK(s.message().find("is not allowed") != std::string::npos);
  }
  CHECK(MustHosts(*store).empty());
  CHECK(store->JoinHost(std::string(64, 'h'), "0.1.0", 4, 1000).ok());
}

STORE_TEST_CASE("hosts: each host lists the attempts it started, and the list counts them") {
  auto [alpha, beta] = OpenStorePair();
  MustJoin(*alpha, "alpha");
  MustJoin(*beta, "beta");
  const TaskId one = MustInsert(*alpha, kAlice, Spec({"one"}));
  const TaskId two = MustInsert(*alpha, kAlice, Spec({"two"}));
  MustStart(*alpha, one, 1100);
  MustStart(*beta, two, 1100);
  CHECK(RunningIds(*alpha) == std::vector<TaskId>{one});
  CHECK(RunningIds(*beta) == std::vector<TaskId>{two});
  std::vector<HostRecord> hosts = MustHosts(*beta);
  REQUIRE(hosts.size() == 2);
  CHECK(hosts[0].name == "alpha");
  CHECK(hosts[0].running == 1);
  CHECK(hosts[1].name == "beta");
  CHECK(hosts[1].running == 1);
}

STORE_TEST_CASE(
    "hosts: a silent host is fenced, its attempts pass to its rescuer, and it "
    "starts nothing until it joins again") {
  auto [alpha, beta] = OpenStorePair();
  MustJoin(*alpha, "alpha");
  MustJoin(*beta, "beta");
  const TaskId id = MustInsert(*alpha, kAlice, Spec({"x"}));
  MustStart(*beta, id, 1100);
  REQUIRE(beta->Heartbeat(4, 1200)->has_value());

  // beta beat since alpha saw 0 beats: nothing changes. Nor for alpha itself, or a stranger.
  Result<std::optional<std::vector<RunningAttempt>>> fenced = alpha->FenceHost("beta", 0);
  REQUIRE(fenced.ok());
  CHECK_FALSE(fenced->has_value());
  CHECK_FALSE(alpha->FenceHost("alpha", 0)->has_value());
  CHECK_FALSE(alpha->FenceHost("gamma", 0)->has_value());
  CHECK(RunningIds(*beta) == std::vector<TaskId>{id});

  fenced = alpha->FenceHost("beta", 1);
  REQUIRE(fenced.ok());
  REQUIRE(fenced->has_value());
  REQUIRE((*fenced)->size() == 1);
  CHECK((**fenced)[0].task_id == id);
  CHECK((**fenced)[0].number == 1);
  CHECK(RunningIds(*alpha) == std::vector<TaskId>{id});
  CHECK(RunningIds(*beta).empty());
  CHECK_FALSE(alpha->FenceHost("beta", 1)->has_value());  // its epoch moved on once
  CHECK(MustHosts(*alpha)[1].beats == -1);
  CHECK_FALSE(alpha->FenceHost("beta", -1)->has_value());
  // beta started it: its processes, if still running on beta's machine, are beta's to kill.
  const std::vector<std::pair<TaskId, int>> passed{{id, 1}};
  CHECK(*beta->PassedOnAttempts() == passed);
  CHECK(alpha->PassedOnAttempts()->empty());
  CHECK(alpha->Get(id)->attempts.at(0).host == "beta");  // where it ran, rescued or not

  // Fenced, beta starts nothing and learns it at its heartbeat.
  const TaskId next = MustInsert(*alpha, kAlice, Spec({"next"}));
  Result<std::optional<int>> started = beta->StartAttempt(next, 1300, {});
  REQUIRE_FALSE(started.ok());
  CHECK(started.status().message().find("host beta was fenced by another host") !=
        std::string::npos);
  CHECK(StateOf(*alpha, next) == TaskState::kPending);
  Result<std::optional<WallMs>> beat = beta->Heartbeat(4, 1400);
  REQUIRE(beat.ok());
  CHECK_FALSE(beat->has_value());

  // The late host's end is refused, before the rescuer records the attempt lost and after.
  Result<std::vector<TaskId>> late =
      beta->FinishAttempt(id, 1, Exited(1450, 0), TaskState::kSucceeded, TaskReason::kExit);
  REQUIRE_FALSE(late.ok());
  CHECK(late.status().message().find("passed to another host when host beta was fenced") !=
        std::string::npos);
  CHECK(StateOf(*alpha, id) == TaskState::kRunning);
  REQUIRE(alpha->FinishAttempt(id, 1, Lost(1500), TaskState::kFailed, TaskReason::kLost).ok());
  CHECK_FALSE(
      beta->FinishAttempt(id, 1, Exited(1600, 0), TaskState::kSucceeded, TaskReason::kExit).ok());
  CHECK(StateOf(*alpha, id) == TaskState::kFailed);

  // Joined again, it runs work as before.
  MustJoin(*beta, "beta", 2000);
  CHECK(MustHosts(*alpha)[1].epoch == 3);      // joined, fenced, joined again
  CHECK(*beta->PassedOnAttempts() == passed);  // until its task is purged
  CHECK(MustStart(*beta, next, 2100) == 1);
  CHECK(RunningIds(*beta) == std::vector<TaskId>{next});
}

STORE_TEST_CASE(
    "hosts: a host that stopped cleanly is listed stopped, is fenced past its lease with its "
    "attempts, and joins again") {
  auto [alpha, beta] = OpenStorePair();
  MustJoin(*alpha, "alpha");
  MustJoin(*beta, "beta");
  const TaskId id = MustInsert(*alpha, kAlice, Spec({"x"}));
  MustStart(*beta, id, 1100);
  REQUIRE(beta->LeaveHost().ok());
  CHECK(MustHosts(*alpha)[1].beats == kStoppedBeats);
  CHECK(MustHosts(*alpha)[1].running == 1);  // its task runs on under its supervisor

  Result<std::optional<std::vector<RunningAttempt>>> fenced =
      alpha->FenceHost("beta", kStoppedBeats);
  REQUIRE(fenced.ok());
  REQUIRE(fenced->has_value());
  CHECK((*fenced)->size() == 1);
  CHECK(MustHosts(*alpha)[1].beats == kFencedBeats);
  REQUIRE(beta->LeaveHost().ok());  // a fenced host's stop changes nothing
  CHECK(MustHosts(*alpha)[1].beats == kFencedBeats);
  MustJoin(*beta, "beta", 2000);
  CHECK(MustHosts(*alpha)[1].beats == 0);
}

STORE_TEST_CASE("hosts: each host holds its own units: HeldUnits names only its attempts'") {
  auto [alpha, beta] = OpenStorePair();
  MustJoin(*alpha, "alpha");
  MustJoin(*beta, "beta");
  TaskSpec spec = Spec({"x"});
  spec.use = {{"gpu", 1}};
  const TaskId here = MustInsert(*alpha, kAlice, spec);
  const TaskId there = MustInsert(*alpha, kAlice, spec);
  REQUIRE(alpha->StartAttempt(here, 1100, {{"gpu", {"0"}}})->has_value());
  REQUIRE(beta->StartAttempt(there, 1100, {{"gpu", {"0"}}})->has_value());
  for (auto& [store, id] : {std::pair{alpha.get(), here}, std::pair{beta.get(), there}}) {
    Result<std::vector<UnitHolder>> held = store->HeldUnits();
    REQUIRE_MESSAGE(held.ok(), held.status().message());
    REQUIRE(held->size() == 1);
    CHECK((*held)[0].task == id);
  }
}

STORE_TEST_CASE("claims inside WriteTogether commit together, and are all undone when it fails") {
  auto store = OpenStore();
  const TaskId a = MustInsert(*store, kAlice, Spec({"a"}, "one"));
  const TaskId b = MustInsert(*store, kAlice, Spec({"b"}, "two"));
  Status failed = store->WriteTogether([&]() -> Status {
    REQUIRE(store->HoldQueues({"one", "two", "none such"}).ok());
    REQUIRE(store->StartAttempt(a, 1100, {})->has_value());
    return Status::Internal("the claimer gave up");
  });
  CHECK(failed.message() == "the claimer gave up");
  CHECK(StateOf(*store, a) == TaskState::kPending);
  Status claimed = store->WriteTogether([&]() -> Status {
    for (TaskId id : {a, b})
      if (Result<std::optional<int>> n = store->StartAttempt(id, 1200, {}); !n.ok())
        return n.status();
    return Status::Ok();
  });
  REQUIRE_MESSAGE(claimed.ok(), claimed.message());
  CHECK(StateOf(*store, a) == TaskState::kRunning);
  CHECK(StateOf(*store, b) == TaskState::kRunning);
  CHECK_FALSE(
      store->WriteTogether([&] { return store->WriteTogether([] { return Status::Ok(); }); })
          .ok());  // not nested
}
