#include "daemon/host/host_lease.h"

#include <doctest/doctest.h>

#include <memory>
#include <string>
#include <vector>

#include "core/store/sqlite/open.h"
#include "core/store/test_util.h"
#include "support/fake_clock.h"
#include "support/refused_commits.h"
#include "support/temp_dir.h"

namespace tq {
namespace {

constexpr int64_t kHostLeaseMs = 3000;

// Two hosts, "a" and "b", on one store file, each with its own lease on one loop and clock. A
// lease's session is a store of its own on the same file, its calls made at once on the loop.
struct LeaseFixture {
  TempDir dir{"host-lease"};
  FakeClock clock;
  EventLoop loop{clock};
  ConfigPtr config;
  std::unique_ptr<Store> a_store, b_store;
  Store* a_session = nullptr;  // owned by a's lease, opened at its first beat
  Store* b_session = nullptr;
  std::unique_ptr<HostLease> a, b;
  struct Rescue {
    std::string host;
    int64_t silent_ms;
    std::vector<RunningAttempt> attempts;
  };
  std::vector<Rescue> rescued_by_a;
  int b_fenced = 0;

  LeaseFixture() {
    Config c;
    c.host_lease_ms = kHostLeaseMs;
    config = std::make_shared<const Config>(c);
    a_store = Open("a");
    b_store = Open("b");
    a = std::make_unique<HostLease>(
        loop, clock, *a_store, SessionOpener(&a_session), config, "a",
        HostLease::Callbacks{
            [] { FAIL("a was fenced"); },
            [this](const std::string& host, int64_t silent_ms,
                   const std::vector<RunningAttempt>& attempts) {
              rescued_by_a.push_back(Rescue{host, silent_ms, attempts});
            },
            [](const std::vector<TaskId>&) { FAIL("a store one host opens has no stages lost"); }},
        HostLease::Threading::kInline);
  }

  // Opens a lease's session, noting it in `*opened`.
  HostLease::OpenSession SessionOpener(Store** opened) {
    return [this, opened]() -> Result<std::unique_ptr<Store>> {
      auto store = OpenSqliteStore((dir.path / "tq.db").string(), /*durability_full=*/false);
      if (store.ok()) *opened = store->get();
      return store;
    };
  }

  std::unique_ptr<Store> Open(const std::string& host) {
    auto store = OpenSqliteStore((dir.path / "tq.db").string(), /*durability_full=*/false);
    REQUIRE_MESSAGE(store.ok(), store.status().message());
    Status joined = (*store)->JoinHost(host, "0.1.0", 2, clock.WallNow());
    REQUIRE_MESSAGE(joined.ok(), joined.message());
    return std::move(*store);
  }

  // b's lease, beating from now on and telling of its fence.
  void StartB() {
    b = std::make_unique<HostLease>(
        loop, clock, *b_store, SessionOpener(&b_session), config, "b",
        HostLease::Callbacks{
            [this] { ++b_fenced; },
            [](const std::string&, int64_t, const auto&) { FAIL("b rescued a host"); },
            [](const std::vector<TaskId>&) { FAIL("b ended tasks"); }},
        HostLease::Threading::kInline);
    b->Start();
  }

  void Pass(int64_t ms) {
    clock.Advance(ms);
    loop.RunReady();
  }
};

TEST_CASE("host lease: a host silent for a whole lease is fenced and its attempts rescued") {
  LeaseFixture f;
  const TaskId id = test::MustInsert(*f.b_store, test::kAlice, test::Spec({"x"}));
  test::MustStart(*f.b_store, id, f.clock.WallNow());
  f.a->Start();  // a first sees b's count now, and beats every third of the lease
  f.Pass(kHostLeaseMs / 3);
  f.Pass(kHostLeaseMs / 3);
  CHECK(f.rescued_by_a.empty());  // two thirds of a lease
  f.Pass(kHostLeaseMs / 3);
  REQUIRE(f.rescued_by_a.size() == 1);
  CHECK(f.rescued_by_a[0].host == "b");
  CHECK(f.rescued_by_a[0].silent_ms == kHostLeaseMs);  // b joined a lease ago and never beat
  REQUIRE(f.rescued_by_a[0].attempts.size() == 1);
  CHECK(f.rescued_by_a[0].attempts[0].task_id == id);
  for (int i = 0; i < 6; ++i) f.Pass(kHostLeaseMs / 3);
  CHECK(f.rescued_by_a.size() == 1);  // fenced once
}

TEST_CASE("host lease: a beating host is never fenced, whatever the wall clock does") {
  LeaseFixture f;
  f.StartB();
  f.a->Start();
  for (int i = 0; i < 10; ++i) {
    f.clock.StepWall(i % 2 == 0 ? 3'600'000 : -7'200'000);  // steps of an hour either way
    f.Pass(kHostLeaseMs / 3);
  }
  CHECK(f.rescued_by_a.empty());
  CHECK(f.b_fenced == 0);
}

TEST_CASE("host lease: a host that stops beating is fenced, and learns it when it beats again") {
  LeaseFixture f;
  f.StartB();
  f.a->Start();
  for (int i = 0; i < 3; ++i) f.Pass(kHostLeaseMs / 3);
  REQUIRE(f.rescued_by_a.empty());
  f.b.reset();  // b stops, as a stopped process would
  for (int i = 0; i < 5; ++i) f.Pass(kHostLeaseMs / 3);
  REQUIRE(f.rescued_by_a.size() == 1);
  CHECK(f.rescued_by_a[0].attempts.empty());
  f.StartB();  // b runs again: its first beat finds it fenced
  CHECK(f.b_fenced == 1);
}

TEST_CASE("host lease: after the store took no heartbeat for a while no host is fenced") {
  LeaseFixture f;
  f.StartB();  // b beats a sixth of a lease before a, in every round
  f.Pass(kHostLeaseMs / 6);
  f.a->Start();
  for (int i = 0; i < 6; ++i) f.Pass(kHostLeaseMs / 6);
  {
    // For two leases no commit of either host goes through (the database stalled).
    RefusedCommits a_refused(*f.a_session), b_refused(*f.b_session);
    for (int i = 0; i < 13; ++i) f.Pass(kHostLeaseMs / 6);
  }  // it thaws just after b's beat failed: a beats first, and looks

  for (int i = 0; i < 12; ++i) f.Pass(kHostLeaseMs / 12);
  CHECK(f.rescued_by_a.empty());
  CHECK(f.b_fenced == 0);
}

TEST_CASE("host lease: a host that was stalled itself fences a silent host a lease after") {
  LeaseFixture f;
  f.StartB();
  f.a->Start();
  for (int i = 0; i < 3; ++i) f.Pass(kHostLeaseMs / 3);
  f.b.reset();  // b stops, and a stalls for three leases
  f.clock.Advance(3 * kHostLeaseMs);
  f.loop.RunReady();
  for (int i = 0; i < 2; ++i) f.Pass(kHostLeaseMs / 3);
  CHECK(f.rescued_by_a.empty());  // two thirds of a lease since a watches again
  f.Pass(kHostLeaseMs / 3);
  CHECK(f.rescued_by_a.size() == 1);
}

}  // namespace
}  // namespace tq
