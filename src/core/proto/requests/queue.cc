#include "core/proto/requests/queue.h"

#include "core/config/config.h"
#include "core/model/quote.h"
#include "core/proto/json_read.h"

namespace tq {

using nlohmann::json;

Result<QueueRequest> DecodeQueue(const json& j) {
  QueueRequest r;
  for (Status st : {Read(j, "action", r.action, "list, pause, resume, set or delete"),
                    Read(j, "name", r.name, "a queue name"),
                    ReadOptional(j, "concurrency", r.concurrency, "an integer")}) {
    if (!st.ok()) return st;
  }
  if (r.action != "list" && r.action != "pause" && r.action != "resume" && r.action != "set" &&
      r.action != "delete")
    return Status::Invalid(
        "action", "action: " + Quote(r.action) + " is not one of list, pause, resume, set, delete");
  if (r.action != "list" && !ValidQueueName(r.name))
    return Status::Invalid(
        "name", "name: " + Quote(r.name) + " is not a queue name (1-64 of A-Z a-z 0-9 _ . -)");
  if (r.action == "set" && (!r.concurrency || *r.concurrency < 0))
    return Status::Invalid("concurrency",
                           "concurrency: set needs --concurrency N (N >= 1, or 0 to clear)");
  return r;
}
json EncodeQueue(const QueueRequest& r) {
  json j{{"action", r.action}, {"name", r.name}};
  if (r.concurrency) j["concurrency"] = *r.concurrency;
  return j;
}

}  // namespace tq
