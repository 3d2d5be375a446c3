#include "core/policy/chooser.h"

#include <tuple>

namespace tq {

ReadyOrder DrawOrder(double high_share, const UniformSource& uniform) {
  return uniform() < high_share ? ReadyOrder::kHighestPriority : ReadyOrder::kOldest;
}

std::optional<Candidate> ChooseAmong(const std::vector<OwnerCandidate>& owners, ReadyOrder order) {
  const OwnerCandidate* best = nullptr;
  // Smaller is better; ids grow with age, so a smaller id is an older task.
  const auto rank = [order](const OwnerCandidate& o) {
    return order == ReadyOrder::kHighestPriority
               ? std::tuple(o.first.priority, o.running, o.last_served, o.first.id)
               : std::tuple(0, 0, uint64_t{0}, o.first.id);
  };
  for (const OwnerCandidate& o : owners)
    if (best == nullptr || rank(o) < rank(*best)) best = &o;
  return best ? std::optional<Candidate>(best->first) : std::nullopt;
}

std::optional<Candidate> PickNext(ReadySource& ready, double high_share,
                                  const UniformSource& uniform) {
  const ReadyOrder order = DrawOrder(high_share, uniform);
  return ChooseAmong(ready.FirstPerOwner(order), order);
}

}  // namespace tq
