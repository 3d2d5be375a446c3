#include "daemon/users/acting_user.h"

#include "core/model/quote.h"
#include "daemon/users/accounts.h"

namespace tq {

Result<Owner> ActingUser(const Owner& peer, const std::optional<std::string>& as_user) {
  if (!as_user || *as_user == peer.name) return peer;
  if (peer.uid != 0)
    return Status(ErrorCode::kPermission, "as_user",
                  "as_user: only root may send a request for another user (" + Quote(peer.name) +
                      " asked to act as " + Quote(*as_user) + ")");
  auto owner = OwnerNamed(*as_user);
  if (!owner.ok()) return owner.status();
  if (!*owner)
    return Status(ErrorCode::kNotFound, "as_user", "as_user: no user is named " + Quote(*as_user));
  return **owner;
}

}  // namespace tq
