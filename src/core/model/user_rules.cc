#include "core/model/user_rules.h"

namespace tq {

bool ValidAccountName(std::string_view name) {
  if (!name.empty() && name.back() == '$') name.remove_suffix(1);
  if (name.empty() || name.size() > 256 || name.front() == '-' || name.front() == '.') return false;
  for (char c : name) {
    const bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
                    c == '_' || c == '.' || c == '-';
    if (!ok) return false;
  }
  return true;
}

}  // namespace tq
