#include "core/proto/requests/events.h"

#include "core/proto/json_read.h"

namespace tq {

using nlohmann::json;

Result<EventsRequest> DecodeEvents(const json& j) {
  EventsRequest r;
  if (Status st = Read(j, "follow", r.follow, "true or false"); !st.ok()) return st;
  return r;
}
json EncodeEvents(const EventsRequest& r) {
  return json{{"follow", r.follow}};
}

}  // namespace tq
