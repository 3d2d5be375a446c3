#include "core/proto/requests/logs.h"

#include <string>
#include <utility>

#include "core/proto/json_read.h"

namespace tq {

using nlohmann::json;

Result<LogsRequest> DecodeLogs(const json& j) {
  LogsRequest r;
  for (Status st :
       {Read(j, "id", r.id, "a task id"), Read(j, "stderr", r.stderr_stream, "true or false"),
        Read(j, "merged", r.merged, "true or false"), Read(j, "offset", r.offset, "a byte offset"),
        Read(j, "attempt", r.attempt, "an attempt number (0: the latest)")}) {
    if (!st.ok()) return st;
  }
  auto select = ReadSelector(j, AnyState(), "read the logs of");
  if (!select.ok()) return select.status();
  r.select = std::move(*select);
  if (r.id != 0 && (!r.select.ids.empty() || r.select.HasFilter()))
    return Status::Invalid("id", "id: names one task; ids and filters go without it");
  if (r.id == 0) {
    if (Status st = NeedsSome(r.select); !st.ok()) return st;
    if (r.attempt != 0)
      return Status::Invalid("attempt", "attempt: goes with one task's id, not with a selection");
  }
  if (r.merged && r.stderr_stream)
    return Status::Invalid("merged", "merged: holds stderr already; it goes without stderr");
  if (r.offset < 0) return Status::Invalid("offset", "offset: must not be negative");
  if (r.attempt < 0)
    return Status::Invalid("attempt", "attempt: " + std::to_string(r.attempt) +
                                          " is not an attempt number (>= 1, or 0: the latest)");
  return r;
}
json EncodeLogs(const LogsRequest& r) {
  json j{{"stderr", r.stderr_stream}, {"offset", r.offset}};
  if (r.id != 0) j["id"] = r.id;
  WriteSelector(r.select, j);
  if (r.merged) j["merged"] = true;
  if (r.attempt != 0) j["attempt"] = r.attempt;
  return j;
}

}  // namespace tq
