#include "core/jobs/overdue.h"

#include <algorithm>

#include "core/model/saturating.h"

namespace tq {

OverdueState CheckOverdue(int64_t within_ms, WallMs first_seen, std::optional<WallMs> last_success,
                          std::optional<WallMs> alerted, WallMs now) {
  OverdueState s;
  s.since = last_success ? std::max(*last_success, first_seen) : first_seen;
  s.deadline = SaturatingAdd(s.since, within_ms);
  s.overdue = now >= s.deadline;
  s.alert = s.overdue && alerted != s.since;
  return s;
}

}  // namespace tq
