#include "core/metrics/histogram.h"

#include <algorithm>
#include <cmath>

namespace tq {

Histogram::Histogram(std::vector<double> upper_bounds)
    : bounds(std::move(upper_bounds)), buckets(bounds.size() + 1, 0) {}

void Histogram::Observe(double value) {
  if (std::isnan(value)) return;
  const size_t i =
      static_cast<size_t>(std::lower_bound(bounds.begin(), bounds.end(), value) - bounds.begin());
  if (buckets.size() != bounds.size() + 1) buckets.assign(bounds.size() + 1, 0);
  ++buckets[i];
  sum += value;
  ++count;
}

double Histogram::Quantile(double q) const {
  if (count == 0 || buckets.size() != bounds.size() + 1) return 0;
  const double rank = std::clamp(q, 0.0, 1.0) * static_cast<double>(count);
  uint64_t below = 0;
  for (size_t i = 0; i < buckets.size(); ++i) {
    if (static_cast<double>(below + buckets[i]) < rank || buckets[i] == 0) {
      below += buckets[i];
      continue;
    }
    if (i == bounds.size()) return bounds.empty() ? 0 : bounds.back();
    const double lower = i == 0 ? 0 : bounds[i - 1];
    const double share = (rank - static_cast<double>(below)) / static_cast<double>(buckets[i]);
    return lower + (bounds[i] - lower) * share;
  }
  return bounds.empty() ? 0 : bounds.back();
}

std::vector<double> DurationBounds() {
  return {0.01, 0.025, 0.05, 0.1, 0.25, 0.5,  1,    2.5,   5,     10,   30,
          60,   120,   300,  600, 1800, 3600, 7200, 14400, 43200, 86400};
}

std::vector<double> CommitBounds() {
  return {0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1};
}

}  // namespace tq
