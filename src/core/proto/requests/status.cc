#include "core/proto/requests/status.h"

#include "core/proto/json_read.h"

namespace tq {

using nlohmann::json;

Result<StatusRequest> DecodeStatus(const json& j) {
  StatusRequest r;
  for (Status st : {Read(j, "id", r.id, "a task id"), Read(j, "env", r.env, "true or false")})
    if (!st.ok()) return st;
  return r;
}
json EncodeStatus(const StatusRequest& r) {
  json j{{"id", r.id}};
  if (r.env) j["env"] = true;
  return j;
}

}  // namespace tq
