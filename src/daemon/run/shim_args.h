// What every start of the shim needs, whether for a task's attempt (Executor) or a hook
// (HookRunner): the options that make it run as someone else, and the environment it is handed
// on a descriptor.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "core/model/account.h"
#include "core/model/resources.h"
#include "core/model/status.h"

namespace tq {

/// The shim's options for running as `account` (nothing for none: the daemon's own user), with
/// the PAM session `pam_service` ("" none) configured in `pam_dir` ("" /etc/pam.d).
std::vector<std::string> IdentityArgs(const std::optional<Account>& account,
                                      const std::string& pam_service, const std::string& pam_dir);

/// The shim's options for `res`'s nice, ionice and rlimits (its cgroup limits are the
/// Executor's: a hook's cgroup has none).
std::vector<std::string> ResourceArgs(const Resources& res);

/// A memory file holding `env` as the shim reads it (TQ_SHIM_ENV_FD), at its start: the
/// environment never touches the disk and never becomes the shim's own.
Result<int> EnvironmentFd(const std::vector<std::string>& env);

/// Creates (truncating) and locks the status record at `path` for a shim about to start, so its
/// lock says "alive" from the shim's first instant; the descriptor, or why not.
Result<int> LockedStatusRecord(const std::string& path);

}  // namespace tq
