// The chooser of SPEC 4: for each free slot, 80% of draws take the highest-priority ready task,
// the rest take the oldest ready task of any priority, so nothing waits forever.
#pragma once

#include <functional>
#include <optional>
#include <vector>

#include "core/store/store.h"

namespace tq {

/// A uniform random number in [0, 1); injected so tests are deterministic.
using UniformSource = std::function<double()>;

/// Where the chooser finds candidates: the best ready task in each order among the queues that
/// have a free slot. The daemon backs it with the store's indexes; tests with a vector.
class ReadySource {
 public:
  virtual ~ReadySource() = default;
  /// The first ready task in `order` among queues with a free slot, if any.
  virtual std::optional<Candidate> First(ReadyOrder order) = 0;
};

/// Which branch a draw takes: kHighestPriority with probability `high_share`, else kOldest.
ReadyOrder DrawOrder(double high_share, const UniformSource& uniform);

/// Picks the task for one free slot: draws the branch and asks `ready` for its first task in that
/// order. Both orders see the same ready set, so when one task is ready either draw picks it.
std::optional<Candidate> PickNext(ReadySource& ready, double high_share,
                                  const UniformSource& uniform);

}  // namespace tq
