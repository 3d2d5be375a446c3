#include "core/proto/requests/queue.h"

#include "core/config/config.h"
#include "core/model/quote.h"
#include "core/proto/json_read.h"

namespace tq {

using nlohmann::json;

Result<QueueRequest> DecodeQueue(const json& j) {
  QueueRequest r;
  std::optional<std::string> mix;
  for (Status st : {Read(j, "action", r.action, "list, add, pause, resume, set or delete"),
                    Read(j, "name", r.name, "a queue name"),
                    ReadOptional(j, "concurrency", r.concurrency, "an integer"),
                    ReadOptional(j, "priority_mix", mix, "\"80/20\" or \"strict\"")}) {
    if (!st.ok()) return st;
  }
  if (r.action != "list" && r.action != "add" && r.action != "pause" && r.action != "resume" &&
      r.action != "set" && r.action != "delete")
    return Status::Invalid("action", "action: " + Quote(r.action) +
                                         " is not one of list, add, pause, resume, set, delete");
  if (r.action != "list" && !ValidQueueRef(r.name)) return QueueRefRefused("name", r.name);
  if (mix) {
    r.priority_mix = PriorityMixNamed(*mix);
    if (!r.priority_mix)
      return Status::Invalid("priority_mix", "priority_mix: " + Quote(*mix) +
                                                 " is not a priority mix (80/20 or strict)");
  }
  const bool settings = r.action == "add" || r.action == "set";
  if (!settings && (r.concurrency || r.priority_mix))
    return Status::Invalid("concurrency", "concurrency and priority_mix go with add or set only");
  if (r.concurrency && *r.concurrency < (r.action == "add" ? 1 : 0))
    return Status::Invalid("concurrency", "concurrency: " + std::to_string(*r.concurrency) +
                                              (r.action == "add" ? " is not at least 1"
                                                                 : " is not at least 1 (or 0 to "
                                                                   "clear)"));
  if (r.action == "set" && !r.concurrency && !r.priority_mix)
    return Status::Invalid("concurrency",
                           "concurrency: set needs --concurrency N (N >= 1, or 0 to clear) or "
                           "--priority-mix 80/20|strict");
  return r;
}
json EncodeQueue(const QueueRequest& r) {
  json j{{"action", r.action}, {"name", r.name}};
  if (r.concurrency) j["concurrency"] = *r.concurrency;
  if (r.priority_mix) j["priority_mix"] = PriorityMixName(*r.priority_mix);
  return j;
}

}  // namespace tq
