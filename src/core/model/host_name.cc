#include "core/model/host_name.h"

#include "core/model/quote.h"

namespace tq {

Status CheckHostName(const char* field, const std::string& name) {
  bool ok = !name.empty() && name.size() <= kMaxHostName && name[0] != '.' && name[0] != '-';
  for (char c : name) {
    const bool word = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
                      c == '.' || c == '_' || c == '-';
    ok = ok && word;
  }
  if (ok) return Status::Ok();
  return Status::Invalid(field, "host name " + Quote(name) + " is not allowed (use 1 to " +
                                    std::to_string(kMaxHostName) +
                                    " letters, digits, '.', '_' and '-', not starting with '.' "
                                    "or '-')");
}

}  // namespace tq
