#include "core/proto/requests/stats.h"

namespace tq {

using nlohmann::json;

Result<StatsRequest> DecodeStats(const json&) {
  return StatsRequest{};
}
json EncodeStats(const StatsRequest&) {
  return json::object();
}

}  // namespace tq
