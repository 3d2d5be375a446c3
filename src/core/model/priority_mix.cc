#include "core/model/priority_mix.h"

namespace tq {

const char* PriorityMixName(PriorityMix mix) {
  return mix == PriorityMix::kStrict ? "strict" : "80/20";
}

std::optional<PriorityMix> PriorityMixNamed(std::string_view name) {
  if (name == "strict") return PriorityMix::kStrict;
  if (name == "80/20") return PriorityMix::kMixed;
  return std::nullopt;
}

}  // namespace tq
