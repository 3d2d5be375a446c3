#include "core/proto/requests/hosts.h"

namespace tq {

using nlohmann::json;

Result<HostsRequest> DecodeHosts(const json&) {
  return HostsRequest{};
}
json EncodeHosts(const HostsRequest&) {
  return json::object();
}

}  // namespace tq
