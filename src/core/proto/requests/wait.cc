#include "core/proto/requests/wait.h"

#include <utility>

#include "core/proto/json_read.h"

namespace tq {

using nlohmann::json;

Result<WaitRequest> DecodeWait(const json& j) {
  auto ids = ReadIds(j);
  if (!ids.ok()) return ids.status();
  return WaitRequest{std::move(*ids)};
}
json EncodeWait(const WaitRequest& r) {
  return json{{"ids", r.ids}};
}

}  // namespace tq
