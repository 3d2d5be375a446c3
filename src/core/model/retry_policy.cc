#include "core/model/retry_policy.h"

#include <utility>

#include "core/model/name_table.h"

namespace tq {

namespace {
const std::pair<BackoffKind, const char*> kBackoffs[] = {
    {BackoffKind::kFixed, "fixed"},
    {BackoffKind::kExponential, "exponential"},
    {BackoffKind::kProgressive, "progressive"},
};
}  // namespace

const char* BackoffName(BackoffKind k) {
  return NameOf(kBackoffs, k);
}

std::optional<BackoffKind> BackoffFromName(const std::string& n) {
  return ValueOf(kBackoffs, n);
}

}  // namespace tq
