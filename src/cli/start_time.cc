#include "cli/start_time.h"

#include "core/model/duration.h"
#include "core/model/wall_time.h"

namespace tq {

Result<std::optional<WallMs>> StartTimeFlags(const std::string& delay, const std::string& at,
                                             WallMs now) {
  if (!delay.empty() && !at.empty())
    return Status::Invalid("--at", "--at and --delay exclude each other");
  if (!delay.empty()) {
    auto d = ParseDuration(delay, "--delay");
    if (!d.ok()) return d.status();
    return std::optional<WallMs>(now + *d);
  }
  if (!at.empty()) {
    auto t = ParseAt(at, now, "--at");
    if (!t.ok()) return t.status();
    return std::optional<WallMs>(*t);
  }
  return std::optional<WallMs>();
}

}  // namespace tq
