#include "core/proto/requests/cancel.h"

#include <utility>

#include "core/proto/json_read.h"

namespace tq {

using nlohmann::json;

Result<CancelRequest> DecodeCancel(const json& j) {
  auto ids = ReadIds(j);
  if (!ids.ok()) return ids.status();
  CancelRequest r{std::move(*ids)};
  if (Status st = Read(j, "progress", r.progress, "true or false"); !st.ok()) return st;
  return r;
}
json EncodeCancel(const CancelRequest& r) {
  json j{{"ids", r.ids}};
  if (r.progress) j["progress"] = true;
  return j;
}

}  // namespace tq
