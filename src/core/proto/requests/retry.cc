#include "core/proto/requests/retry.h"

#include <string>

#include "core/proto/json_read.h"

namespace tq {

using nlohmann::json;

Result<RetryRequest> DecodeRetry(const json& j) {
  RetryRequest r;
  std::string queue;
  for (Status st : {Read(j, "ids", r.ids, "an array of task ids"),
                    Read(j, "all_failed", r.all_failed, "true or false"),
                    Read(j, "queue", queue, "a queue name")}) {
    if (!st.ok()) return st;
  }
  if (!queue.empty()) r.queue = queue;
  if (r.ids.empty() == !r.all_failed)
    return Status::Invalid("ids", "ids: give task ids, or all_failed, not both");
  return r;
}
json EncodeRetry(const RetryRequest& r) {
  json j{{"ids", r.ids}, {"all_failed", r.all_failed}};
  if (r.queue) j["queue"] = *r.queue;
  return j;
}

}  // namespace tq
