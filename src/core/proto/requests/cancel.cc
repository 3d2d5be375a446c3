#include "core/proto/requests/cancel.h"

#include <utility>

#include "core/proto/json_read.h"

namespace tq {

using nlohmann::json;

Result<CancelRequest> DecodeCancel(const json& j) {
  auto ids = ReadIds(j);
  if (!ids.ok()) return ids.status();
  return CancelRequest{std::move(*ids)};
}
json EncodeCancel(const CancelRequest& r) {
  return json{{"ids", r.ids}};
}

}  // namespace tq
