// Histograms: which bucket an observation lands in, and the quantiles `tq stats` shows.
#include "core/metrics/histogram.h"

#include <cmath>

#include <doctest/doctest.h>

namespace tq {

TEST_CASE("an observation lands in the first bucket whose bound is at least it") {
  struct Case {
    double value;
    size_t bucket;
  };
  const Case cases[] = {{0, 0}, {0.5, 0}, {1, 0}, {1.01, 1}, {2, 1}, {5, 2}, {5.5, 3}, {1e9, 3}};
  for (const Case& c : cases) {
    INFO(c.value);
    Histogram h({1, 2, 5});
    h.Observe(c.value);
    CHECK(h.buckets[c.bucket] == 1);
    CHECK(h.count == 1);
    CHECK(h.sum == c.value);
  }
  Histogram h({1, 2, 5});
  h.Observe(std::nan(""));
  CHECK(h.count == 0);  // a NaN is no observation
}

TEST_CASE("quantiles interpolate within their bucket, as histogram_quantile does") {
  Histogram h({1, 2, 4});
  CHECK(h.Quantile(0.5) == 0);                  // empty
  for (int i = 0; i < 10; ++i) h.Observe(0.5);  // 10 in (0, 1]
  for (int i = 0; i < 10; ++i) h.Observe(1.5);  // 10 in (1, 2]
  struct Case {
    double q, want;
  };
  const Case cases[] = {{0.25, 0.5}, {0.5, 1.0}, {0.75, 1.5}, {1.0, 2.0}, {0.0, 0.0}};
  for (const Case& c : cases) {
    INFO(c.q);
    CHECK(h.Quantile(c.q) == doctest::Approx(c.want));
  }
  h.Observe(100);  // past the last bound: the quantile says the last bound
  CHECK(h.Quantile(1.0) == 4);
}

TEST_CASE("the default bounds ascend") {
  for (const auto& bounds : {DurationBounds(), CommitBounds()})
    for (size_t i = 1; i < bounds.size(); ++i) CHECK(bounds[i - 1] < bounds[i]);
}

}  // namespace tq
