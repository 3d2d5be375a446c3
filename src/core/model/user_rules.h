// Who may use the system daemon and who administers it (SPEC 8): tqd.toml's admin_group,
// allow_users and deny_users, the cron.allow and cron.deny of tq.
#pragma once

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
};

/// Whether `name` can be a user or group name: 1 to 256 characters from A-Z a-z 0-9 _ . -, not
/// starting with '-', optionally ending in '$' (as the shadow tools accept with their defaults
/// and Samba machine accounts use).
bool ValidAccountName(std::string_view name);

}  // namespace tq
