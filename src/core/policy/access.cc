#include "core/policy/access.h"

#include <algorithm>

#include "core/model/quote.h"

namespace tq {

bool Access::Sees(uint32_t owner_uid) const {
  return admin || owner_uid == uid;
}

std::optional<uint32_t> Access::OwnerFilter() const {
  return admin ? std::nullopt : std::optional<uint32_t>(uid);
}

Access AccessOf(const Owner& peer, uint32_t daemon_uid, const UserRules& rules,
                bool in_admin_group) {
  Access a;
  a.uid = peer.uid;
  const bool superuser = peer.uid == 0 || peer.uid == daemon_uid;
  a.admin = superuser || in_admin_group;
  if (superuser) return a;
  const auto lists = [&](const std::vector<std::string>& names) {
    return std::find(names.begin(), names.end(), peer.name) != names.end();
  };
  const std::string who = "user " + Quote(peer.name) + " (uid " + std::to_string(peer.uid) + ")";
  if (rules.allow_users && !lists(*rules.allow_users))
    a.refusal = who + " may not use tq: allow_users in tqd.toml does not name it";
  else if (lists(rules.deny_users))
    a.refusal = who + " may not use tq: deny_users in tqd.toml names it";
  return a;
}

}  // namespace tq
