// Whom the system daemon runs a task as: the owner's account, looked up again at every start
// (SPEC 8), so a task whose user was deleted or renamed since it was submitted never runs.
#pragma once

#include <pwd.h>

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "core/model/account.h"
#include "core/model/status.h"
#include "core/model/task.h"

namespace tq {

/// The account `owner` names: the password database's entry for owner.name, which must still
/// have owner.uid, with every group of it (getgrouplist). kNotFound when the account is gone
/// or now has another uid (the task fails `user-gone`); kInternal when the lookup itself
/// failed (the task waits); kInvalid when the entry is larger than tqd reads (the attempt
/// fails). The message says which.
Result<Account> AccountOf(const Owner& owner);

/// The uid, primary gid and name of the account `name`: nullopt when the password database has
/// none; kInternal when the lookup itself failed.
Result<std::optional<Owner>> OwnerNamed(const std::string& name);

/// How the password database is read by name: getpwnam_r's signature.
using PasswdLookup = int (*)(const char* name, passwd* entry, char* buf, size_t size,
                             passwd** found);
/// Makes AccountOf and OwnerNamed read the password database through `lookup`, or through
/// getpwnam_r again when it is null: how a test fakes a name service that cannot be reached.
void SetPasswdLookup(PasswdLookup lookup);

/// Every group of the user `name` whose primary group is `gid`, gid first (getgrouplist);
/// empty when the lookup failed.
std::vector<uint32_t> GroupsOf(const std::string& name, uint32_t gid);

}  // namespace tq
