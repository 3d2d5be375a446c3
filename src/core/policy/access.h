// Who sees what in tqd: the one decision, over a caller's credentials and tqd.toml's user rules,
// that task lookups, listings, retry and the admin-only requests all follow.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "core/model/task.h"
#include "core/model/user_rules.h"

namespace tq {

/// What one caller may see and do.
struct Access {
  bool admin = false;   ///< sees every user's tasks and may send admin-only requests
  uint32_t uid = 0;     ///< the caller's uid
  std::string refusal;  ///< why allow_users or deny_users keep the caller out; "": let in

  /// True when allow_users and deny_users let the caller use tqd at all.
  bool Allowed() const { return refusal.empty(); }
  /// True when the caller may see (and act on) a task owned by `owner_uid`.
  bool Sees(uint32_t owner_uid) const;
  /// The owner a listing of the caller's tasks is limited to; nullopt: every owner.
  std::optional<uint32_t> OwnerFilter() const;
};

/// The decision. Root and the user tqd runs as (`daemon_uid`) are admins and always let in;
/// so is a member of rules.admin_group (`in_admin_group`, from the group database). Anyone
/// else sees only their own tasks, and is kept out when rules.allow_users is set and does not
/// list them or rules.deny_users lists them (an admin too: the lists name users, not roles).
Access AccessOf(const Owner& peer, uint32_t daemon_uid, const UserRules& rules,
                bool in_admin_group);

}  // namespace tq
