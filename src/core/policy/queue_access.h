// Who may use a queue: a queue with `allow_users` or `allow_groups` in tqd.toml lends its raised
// priority and limits only to the users it names, the members of the groups it names, and the
// admins; anyone else is refused at submit, naming the queue.
#pragma once

#include <functional>
#include <string>

#include "core/model/status.h"
#include "core/model/user_rules.h"

namespace tq {

/// Whether `user` (an admin when `admin`) may put tasks in queue `queue`, whose users are
/// `allowed`; `in_group` says whether `user` is a member of a group. Ok, or kPermission naming
/// the queue and who may use it.
Status CheckQueueUse(const std::string& queue, const QueueUsers& allowed, const std::string& user,
                     bool admin, const std::function<bool(const std::string&)>& in_group);

}  // namespace tq
