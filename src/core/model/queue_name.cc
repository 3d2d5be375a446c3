#include "core/model/queue_name.h"

#include "core/model/name_text.h"
#include "core/model/quote.h"
#include "core/model/user_rules.h"

namespace tq {

bool ValidQueueName(std::string_view name) {
  return ValidNameText(name, 64);
}

bool ValidQueueRef(std::string_view ref) {
  const size_t slash = ref.find('/');
  if (slash == std::string_view::npos) return ValidQueueName(ref);
  return ValidAccountName(ref.substr(0, slash)) && ValidQueueName(ref.substr(slash + 1));
}

std::string_view QueueUser(std::string_view queue) {
  const size_t slash = queue.find('/');
  return slash == std::string_view::npos ? std::string_view() : queue.substr(0, slash);
}

Status QueueRefRefused(const std::string& field, const std::string& ref) {
  return Status::Invalid(field, field + ": " + Quote(ref) +
                                    " is not a queue name (1-64 of A-Z a-z 0-9 _ . -, or "
                                    "USER/NAME for a queue of USER's own)");
}

}  // namespace tq
