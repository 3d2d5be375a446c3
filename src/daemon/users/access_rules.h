// Who may see and do what, as tqd.toml's [users] and each queue's allow_users and allow_groups
// say, with admin_group's members looked up through a cache (SPEC 8).
#pragma once

#include <cstdint>
#include <string>

#include "core/config/config.h"
#include "core/model/clock.h"
#include "core/model/status.h"
#include "core/model/task.h"
#include "core/policy/access.h"
#include "daemon/users/group_members.h"

namespace tq {

/// The daemon's access decisions for a caller.
class AccessRules {
 public:
  /// Reads the rules through `config` (the daemon's pointer, which must outlive these rules);
  /// group memberships are remembered for `group_ttl_ms`.
  AccessRules(const Clock& clock, const ConfigPtr& config, int64_t group_ttl_ms)
      : config_(config), members_(clock, group_ttl_ms) {}

  /// What `peer` may see and do (AccessOf, with the user the daemon runs as).
  Access For(const Owner& peer) const;
  /// Whether `peer` may put tasks in `queue` (CheckQueueUse over the queue's allow_users and
  /// allow_groups); kPermission naming the queue when not.
  Status CheckQueue(const Owner& peer, const std::string& queue) const;

 private:
  const ConfigPtr& config_;
  mutable GroupMembers members_;  ///< a cache, so the decisions are const
};

}  // namespace tq
