// When one host may fence another (SPEC 12): a table of this host's beats on the store's clock,
// and what it may fence after each.
#include "core/policy/lease_watch.h"

#include <doctest/doctest.h>

#include <vector>

namespace tq {
namespace {

constexpr int64_t kLeaseMs = 3000;

// This host beats at `beats` (the store's clock); then another host is `silent_ms` old.
struct LeaseCase {
  const char* what;
  std::vector<WallMs> beats;
  int64_t silent_ms;
  bool may_fence;
};

TEST_CASE("LeaseWatch: a silent host is fenced only by a host that has beaten for a lease") {
  const LeaseCase cases[] = {
      {"no beat of its own yet", {}, 10 * kLeaseMs, false},
      {"its first beat", {1000}, 10 * kLeaseMs, false},
      {"beats for two thirds of a lease", {1000, 2000, 3000}, 10 * kLeaseMs, false},
      {"beats for a whole lease", {1000, 2000, 3000, 4000}, kLeaseMs, true},
      {"a whole lease, the other silent just under it",
       {1000, 2000, 3000, 4000},
       kLeaseMs - 1,
       false},
      {"beats a little late, no gap above half a lease", {1000, 2500, 4000}, kLeaseMs, true},
      // Every host's store stalled for a minute: the first beat after it is a gap.
      {"the first beat after a stall", {1000, 2000, 3000, 4000, 64000}, 60 * kLeaseMs, false},
      {"a lease after the stall",
       {1000, 2000, 3000, 4000, 64000, 65000, 66000, 67000},
       kLeaseMs,
       true},
      {"two thirds of a lease after the stall",
       {1000, 2000, 3000, 4000, 64000, 65000, 66000},
       kLeaseMs,
       false},
      // The store's clock stepped back an hour: a gap as well, and no silence read as negative.
      {"the store's clock stepped back",
       {3601000, 3602000, 3603000, 3604000, 5000},
       kLeaseMs,
       false},
      {"the store's clock stepped forward", {1000, 2000, 3000, 4000, 3604000}, kLeaseMs, false},
  };
  for (const LeaseCase& c : cases) {
    CAPTURE(c.what);
    LeaseWatch w;
    for (WallMs at : c.beats) w.Beat(at, kLeaseMs);
    CHECK(w.MayFence(c.silent_ms, kLeaseMs) == c.may_fence);
  }
}

TEST_CASE("LeaseWatch: how long it has watched, from its last gap") {
  LeaseWatch w;
  CHECK(w.WatchedMs() == 0);
  w.Beat(1000, kLeaseMs);
  w.Beat(2000, kLeaseMs);
  CHECK(w.WatchedMs() == 1000);
  w.Beat(9000, kLeaseMs);
  CHECK(w.WatchedMs() == 0);
}

}  // namespace
}  // namespace tq
