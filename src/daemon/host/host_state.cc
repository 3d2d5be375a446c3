#include "daemon/host/host_state.h"

#include <algorithm>

namespace tq {

const char* HostStateName(const HostRecord& h, const std::string& self, bool shared, int64_t age_ms,
                          int64_t lease_ms) {
  if (h.beats == kFencedBeats) return "fenced";
  if (h.beats == kStoppedBeats) return "stopped";
  if (!shared) return h.name == self ? "live" : "silent";
  return age_ms > lease_ms ? "silent" : "live";
}

int64_t HeartbeatAgeMs(const HostRecord& h) {
  return std::max<int64_t>(0, h.silent_ms);
}

}  // namespace tq
