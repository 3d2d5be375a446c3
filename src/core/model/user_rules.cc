#include "core/model/user_rules.h"

#include "core/model/name_text.h"

namespace tq {

bool ValidAccountName(std::string_view name) {
  if (!name.empty() && name.back() == '$') name.remove_suffix(1);
  if (!name.empty() && (name.front() == '-' || name.front() == '.')) return false;
  return ValidNameText(name, 256);
}

}  // namespace tq
