#include "core/proto/requests/ping.h"

namespace tq {

using nlohmann::json;

Result<PingRequest> DecodePing(const json&) {
  return PingRequest{};
}
json EncodePing(const PingRequest&) {
  return json::object();
}

}  // namespace tq
