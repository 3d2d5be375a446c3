#include "core/proto/requests/resources.h"

namespace tq {

using nlohmann::json;

Result<ResourcesRequest> DecodeResources(const json&) {
  return ResourcesRequest{};
}
json EncodeResources(const ResourcesRequest&) {
  return json::object();
}

}  // namespace tq
