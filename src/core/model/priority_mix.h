// How a queue orders its own ready tasks (SPEC 4, issue 26): the daemon's mix of highest
// priority first and oldest first, or strictly by priority.
#pragma once

#include <optional>
#include <string_view>

namespace tq {

/// A queue's order among its ready tasks.
enum class PriorityMix {
  kMixed,   ///< "80/20": high_share of picks take the highest priority, the rest the oldest
  kStrict,  ///< "strict": highest priority first, oldest first within it (pueue's order)
};

/// "80/20" or "strict".
const char* PriorityMixName(PriorityMix mix);
/// The mix `name` stands for ("80/20" or "strict"); nullopt for anything else.
std::optional<PriorityMix> PriorityMixNamed(std::string_view name);

}  // namespace tq
