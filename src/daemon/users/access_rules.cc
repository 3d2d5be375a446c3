#include "daemon/users/access_rules.h"

#include <unistd.h>

#include "core/model/quote.h"
#include "core/policy/queue_access.h"

namespace tq {

Access AccessRules::For(const Owner& peer) const {
  const UserRules& rules = config_->users;
  const bool member =
      !rules.admin_group.empty() && peer.uid != 0 && members_.Contains(peer, rules.admin_group);
  return AccessOf(peer, geteuid(), rules, member);
}

Status AccessRules::CheckQueue(const Owner& peer, const std::string& queue) const {
  const std::string_view user = QueueUser(queue);
  if (!user.empty() && user != peer.name && !For(peer).admin)
    return Status(ErrorCode::kPermission, "queue",
                  "queue: " + Quote(queue) + " is " + std::string(user) + "'s own: only " +
                      std::string(user) + " and the admins may use it");
  const QueueUsers& allowed = config_->Queue(queue).users;
  if (!allowed.restricted) return Status::Ok();
  return CheckQueueUse(queue, allowed, peer.name, For(peer).admin,
                       [&](const std::string& group) { return members_.Contains(peer, group); });
}

}  // namespace tq
