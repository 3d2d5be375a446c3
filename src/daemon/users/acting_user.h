// For whom a request acts: its sender, or the user root names in the request's "as_user" (a
// console behind a proxy that signs its users in: tq web --trust-user-header).
#pragma once

#include <optional>
#include <string>

#include "core/model/status.h"
#include "core/model/task.h"

namespace tq {

/// The user a request from `peer` acts as: `peer` itself when `as_user` is unset or names it;
/// the account `as_user` names when `peer` is root; kPermission for anyone else, kNotFound for
/// a name the password database does not have.
Result<Owner> ActingUser(const Owner& peer, const std::optional<std::string>& as_user);

}  // namespace tq
