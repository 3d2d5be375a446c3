#include "core/model/retry_policy.h"

#include <utility>

namespace tq {

namespace {
const std::pair<BackoffKind, const char*> kBackoffs[] = {
    {BackoffKind::kFixed, "fixed"},
    {BackoffKind::kExponential, "exponential"},
    {BackoffKind::kProgressive, "progressive"},
};
}  // namespace

const char* BackoffName(BackoffKind k) {
  for (const auto& [kind, name] : kBackoffs)
    if (kind == k) return name;
  return "?";
}

std::optional<BackoffKind> BackoffFromName(const std::string& n) {
  for (const auto& [kind, name] : kBackoffs)
    if (n == name) return kind;
  return std::nullopt;
}

}  // namespace tq
