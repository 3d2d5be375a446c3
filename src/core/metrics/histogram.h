// A histogram as Prometheus keeps one: how many observations fell at or below each bound, their
// sum and their count, in fixed memory however many there are.
#pragma once

#include <cstdint>
#include <vector>

namespace tq {

/// Observations in buckets with fixed upper bounds (seconds, ascending) and one past the last.
struct Histogram {
  std::vector<double> bounds;     ///< upper bounds, ascending; +Inf is implied after the last
  std::vector<uint64_t> buckets;  ///< observations per bucket (not cumulative), bounds.size()+1
  double sum = 0;
  uint64_t count = 0;

  Histogram() = default;
  /// An empty histogram over `upper_bounds` (ascending).
  explicit Histogram(std::vector<double> upper_bounds);
  /// Counts `value` in the first bucket whose bound is at least `value`.
  void Observe(double value);
  /// The value below which a share `q` (0..1) of the observations fall, interpolated within its
  /// bucket as Prometheus's histogram_quantile does; 0 when empty; the last bound when it falls
  /// past it.
  double Quantile(double q) const;
};

/// Bounds for waits and run times: 10 ms to a day.
std::vector<double> DurationBounds();
/// Bounds for store commits (their sync included): 0.1 ms to 1 s.
std::vector<double> CommitBounds();

}  // namespace tq
