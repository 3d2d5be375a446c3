#include "core/proto/requests/logs.h"

#include <string>

#include "core/proto/json_read.h"

namespace tq {

using nlohmann::json;

Result<LogsRequest> DecodeLogs(const json& j) {
  LogsRequest r;
  for (Status st :
       {Read(j, "id", r.id, "a task id"), Read(j, "stderr", r.stderr_stream, "true or false"),
        Read(j, "offset", r.offset, "a byte offset"),
        Read(j, "attempt", r.attempt, "an attempt number (0: the latest)")}) {
    if (!st.ok()) return st;
  }
  if (r.offset < 0) return Status::Invalid("offset", "offset: must not be negative");
  if (r.attempt < 0)
    return Status::Invalid("attempt", "attempt: " + std::to_string(r.attempt) +
                                          " is not an attempt number (>= 1, or 0: the latest)");
  return r;
}
json EncodeLogs(const LogsRequest& r) {
  json j{{"id", r.id}, {"stderr", r.stderr_stream}, {"offset", r.offset}};
  if (r.attempt != 0) j["attempt"] = r.attempt;
  return j;
}

}  // namespace tq
