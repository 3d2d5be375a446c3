#include "core/model/saturating.h"

#include <doctest/doctest.h>

#include <limits>

namespace tq {
namespace {

constexpr int64_t kMax = std::numeric_limits<int64_t>::max();
constexpr int64_t kMin = std::numeric_limits<int64_t>::min();

TEST_CASE("SaturatingAdd adds, and stops at the ends of int64 instead of wrapping") {
  CHECK(SaturatingAdd(2, 3) == 5);
  CHECK(SaturatingAdd(-2, 3) == 1);
  CHECK(SaturatingAdd(kMax - 1, 1) == kMax);
  CHECK(SaturatingAdd(kMax - 1, 2) == kMax);
  CHECK(SaturatingAdd(1'700'000'000'000, kMax) == kMax);
  CHECK(SaturatingAdd(kMax, kMax) == kMax);
  CHECK(SaturatingAdd(kMin + 1, -1) == kMin);
  CHECK(SaturatingAdd(-5, kMin) == kMin);
  CHECK(SaturatingAdd(kMin, kMax) == -1);
  static_assert(SaturatingAdd(kMax, 1) == kMax);
}

}  // namespace
}  // namespace tq
