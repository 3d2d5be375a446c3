#include "core/model/name_text.h"

namespace tq {

bool ValidNameText(std::string_view name, size_t max_bytes) {
  if (name.empty() || name.size() > max_bytes) return false;
  for (char c : name) {
    const bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
                    c == '_' || c == '.' || c == '-';
    if (!ok) return false;
  }
  return true;
}

}  // namespace tq
