// Whom the system daemon runs a task as: the owner's account, looked up again at every start
// (SPEC 8), so a task whose user was deleted or renamed since it was submitted never runs.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "core/model/account.h"
#include "core/model/status.h"
#include "core/model/task.h"

namespace tq {

/// The account `owner` names: the password database's entry for owner.name, which must still
/// have owner.uid, with every group of it (getgrouplist). kNotFound when the account is gone
/// or now has another uid (the task fails `user-gone`); kInternal when the lookup itself
/// failed. The message says which.
Result<Account> AccountOf(const Owner& owner);

/// Every group of the user `name` whose primary group is `gid`, gid first (getgrouplist);
/// empty when the lookup failed.
std::vector<uint32_t> GroupsOf(const std::string& name, uint32_t gid);

}  // namespace tq
