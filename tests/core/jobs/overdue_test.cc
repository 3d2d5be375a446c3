#include "core/jobs/overdue.h"

#include <doctest/doctest.h>

namespace tq {
namespace {

TEST_CASE("CheckOverdue: the stretch, the deadline and one alert per stretch") {
  constexpr int64_t kDay = 24 * 3600 * 1000LL;
  struct Case {
    const char* name;
    std::optional<WallMs> last_success, alerted;
    WallMs now;
    WallMs since;
    bool overdue, alert;
  };
  const WallMs seen = 1000;
  const Case cases[] = {
      {"never succeeded, within the window", {}, {}, seen + kDay - 1, seen, false, false},
      {"never succeeded, the window is over", {}, {}, seen + kDay, seen, true, true},
      {"already alerted for this stretch", {}, seen, seen + 3 * kDay, seen, true, false},
      {"succeeded lately", seen + kDay, {}, seen + kDay + 10, seen + kDay, false, false},
      {"a new stretch after a success alerts again", seen + kDay, seen, seen + 2 * kDay + 5,
       seen + kDay, true, true},
      {"the alert of the old stretch does not count", seen + kDay, seen, seen + kDay + 5,
       seen + kDay, false, false},
  };
  for (const Case& c : cases) {
    CAPTURE(c.name);
    const OverdueState s = CheckOverdue(kDay, seen, c.last_success, c.alerted, c.now);
    CHECK(s.since == c.since);
    CHECK(s.deadline == c.since + kDay);
    CHECK(s.overdue == c.overdue);
    CHECK(s.alert == c.alert);
  }
}

TEST_CASE("CheckOverdue never overflows a huge window") {
  const OverdueState s = CheckOverdue(INT64_MAX, 5, std::nullopt, std::nullopt, 10);
  CHECK_FALSE(s.overdue);
  CHECK(s.deadline == INT64_MAX);
}

}  // namespace
}  // namespace tq
