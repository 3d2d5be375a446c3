#include "core/policy/chooser.h"

namespace tq {

ReadyOrder DrawOrder(double high_share, const UniformSource& uniform) {
  return uniform() < high_share ? ReadyOrder::kHighestPriority : ReadyOrder::kOldest;
}

std::optional<Candidate> PickNext(ReadySource& ready, double high_share,
                                  const UniformSource& uniform) {
  return ready.First(DrawOrder(high_share, uniform));
}

}  // namespace tq
