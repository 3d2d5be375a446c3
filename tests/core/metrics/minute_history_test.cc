#include "core/metrics/minute_history.h"

#include <doctest/doctest.h>

#include "core/metrics/metrics.h"

namespace tq {
namespace {

MinuteSample MinuteAt(WallMs at, uint64_t succeeded) {
  MinuteSample s;
  s.at = at;
  s.succeeded = succeeded;
  return s;
}

TEST_CASE("MinuteHistory keeps the newest 61 samples, oldest first") {
  MinuteHistory h;
  CHECK(h.samples().empty());
  for (int i = 0; i < 61; ++i) h.Observe(MinuteAt(i * 60000, i));
  REQUIRE(h.samples().size() == 61);
  CHECK(h.samples().front() == MinuteAt(0, 0));
  h.Observe(MinuteAt(61 * 60000, 61));
  h.Observe(MinuteAt(62 * 60000, 62));
  const std::vector<MinuteSample> kept = h.samples();
  REQUIRE(kept.size() == 61);
  CHECK(kept.front() == MinuteAt(2 * 60000, 2));
  CHECK(kept.back() == MinuteAt(62 * 60000, 62));
}

TEST_CASE("SampleOf takes the totals of a snapshot, and the history goes over the wire") {
  MetricsSnapshot s;
  s.counters.finished = {{"succeeded", 7}, {"failed", 2}, {"cancelled", 5}};
  s.counters.queue_wait.Observe(1.5);
  s.counters.queue_wait.Observe(0.5);
  s.running = {{"default", 2}, {"batch", 1}};
  const MinuteSample m = SampleOf(s, 1800000000000);
  CHECK(m.at == 1800000000000);
  CHECK(m.succeeded == 7);
  CHECK(m.failed == 2);
  CHECK(m.wait_sum_s == doctest::Approx(2.0));
  CHECK(m.wait_count == 2);
  CHECK(m.running == 3);
  CHECK(SampleOf(MetricsSnapshot{}, 5) == MinuteSample{5, 0, 0, 0, 0, 0});

  s.history = {m, SampleOf(MetricsSnapshot{}, 5)};
  auto back = MetricsFromJson(MetricsToJson(s));
  REQUIRE(back.ok());
  CHECK(back->history == s.history);
  nlohmann::json older = MetricsToJson(s);  // a daemon from before the history
  older.erase("history");
  back = MetricsFromJson(older);
  REQUIRE(back.ok());
  CHECK(back->history.empty());
}

}  // namespace
}  // namespace tq
