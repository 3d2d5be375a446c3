#include "core/policy/queue_access.h"

#include <algorithm>

#include "core/model/quote.h"

namespace tq {

namespace {

// "alice, bob" for a list of names; "none" when empty.
std::string Names(const std::vector<std::string>& names) {
  std::string out;
  for (const std::string& n : names) out += (out.empty() ? "" : ", ") + n;
  return out.empty() ? "none" : out;
}

}  // namespace

Status CheckQueueUse(const std::string& queue, const QueueUsers& allowed, const std::string& user,
                     bool admin, const std::function<bool(const std::string&)>& in_group) {
  if (!allowed.restricted || admin) return Status::Ok();
  if (std::find(allowed.users.begin(), allowed.users.end(), user) != allowed.users.end())
    return Status::Ok();
  if (std::any_of(allowed.groups.begin(), allowed.groups.end(), in_group)) return Status::Ok();
  return Status(ErrorCode::kPermission, "queue",
                "queue: " + Quote(queue) + " is not open to " + Quote(user) +
                    " (its allow_users in tqd.toml: " + Names(allowed.users) +
                    "; allow_groups: " + Names(allowed.groups) + "; and the admins)");
}

}  // namespace tq
