// Who may use the system daemon and who administers it (SPEC 8): tqd.toml's admin_group,
// allow_users and deny_users, the cron.allow and cron.deny of tq.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace tq {

/// The rules; the defaults let every user in and make no group an admin.
struct UserRules {
  std::string admin_group;  ///< members see every task and may send admin requests; "": none
  std::optional<std::vector<std::string>> allow_users;  ///< set: only these users may use tq
  std::vector<std::string> deny_users;                  ///< these users may not use tq
  bool operator==(const UserRules&) const = default;
};

/// Who may use one queue (`allow_users`, `allow_groups` of `[queues.NAME]`): when `restricted`,
/// only the users listed, the members of the groups listed, and the admins.
struct QueueUsers {
  bool restricted = false;  ///< either key was given
  std::vector<std::string> users;
  std::vector<std::string> groups;
  bool operator==(const QueueUsers&) const = default;
};

/// What one user may hold and do at once (SPEC 8): `[user_limits]` in tqd.toml for every user,
/// `[users.NAME]` for one. Root and the daemon's own user have none. Each refusal names the
/// limit and its value.
struct UserLimits {
  /// Pending tasks of one user: more than any batch a person queues, while a runaway loop stops
  /// long before the store grows large.
  int64_t max_pending = 100000;
  /// Tasks per second one user may submit on average (a token bucket) ...
  double submit_rate = 100;
  /// ... and at once above that rate: a script that queues 1,000 tasks is never slowed.
  int64_t submit_burst = 1000;
  /// Tasks of one user running at once; 0: no cap of their own (max_running and the queues').
  int64_t max_running = 0;
  /// Output bytes kept for one user's tasks (purged with them): 512 tasks at the 8 MiB default
  /// output_max of both streams, a disk no one user can fill.
  int64_t output_bytes = int64_t{8} << 30;
  /// Queues of the user's own (USER/NAME) the store may hold: every one is read by the chooser
  /// and `tq queue list`, so no one user can make thousands.
  int64_t max_queues = 100;
  bool operator==(const UserLimits&) const = default;
};

/// Whether `name` can be a user or group name: 1 to 256 characters from A-Z a-z 0-9 _ . -, not
/// starting with '-' or '.', optionally ending in '$' (as the shadow tools accept with their
/// defaults and Samba machine accounts use). So a name is never "." or "..", never a path.
bool ValidAccountName(std::string_view name);

}  // namespace tq
