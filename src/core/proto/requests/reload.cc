#include "core/proto/requests/reload.h"

namespace tq {

using nlohmann::json;

Result<ReloadRequest> DecodeReload(const json&) {
  return ReloadRequest{};
}
json EncodeReload(const ReloadRequest&) {
  return json::object();
}

}  // namespace tq
