#include "core/proto/requests/hold.h"

#include <utility>

#include "core/proto/json_read.h"

namespace tq {

using nlohmann::json;

Result<HoldRequest> DecodeHold(const json& j) {
  HoldRequest r;
  if (Status st = Read(j, "release", r.release, "true or false"); !st.ok()) return st;
  auto select = ReadSelector(j, {TaskState::kPending}, r.release ? "release" : "hold");
  if (!select.ok()) return select.status();
  if (Status st = NeedsSome(*select); !st.ok()) return st;
  r.select = std::move(*select);
  return r;
}

json EncodeHold(const HoldRequest& r) {
  json j = json::object();
  WriteSelector(r.select, j);
  if (r.release) j["release"] = true;
  return j;
}

}  // namespace tq
