// What `tq jobs check` can tell of a job before tqd loads it, beyond its file: whether tqd will
// run it as its user and has the resource units it asks for, in tqd's own words (as
// daemon/cron/job_user.cc and core/policy/unit_grant.cc refuse them).
#pragma once

#include <sys/types.h>

#include <functional>
#include <optional>
#include <string>

#include "core/jobs/job.h"
#include "core/model/status.h"
#include "core/model/unit_use.h"

namespace tq {

/// What looking an account up by name found.
struct AccountFound {
  enum class Kind { kFound, kMissing, kError };
  Kind kind = Kind::kMissing;
  uid_t uid = 0;      ///< kFound: its uid
  std::string error;  ///< kError: why the password database could not say (strerror)
};

/// Looks an account up by name in this machine's password database (getpwnam_r in the client).
using AccountLookup = std::function<AccountFound(const std::string& name)>;

/// What is known of the daemon that would load the job file; what is unknown is not checked.
struct JobHost {
  AccountLookup lookup;             ///< must be set
  std::optional<uid_t> daemon_uid;  ///< the uid tqd runs as; nullopt: unknown
  std::optional<UnitPools> pools;   ///< tqd.toml's [resources] in force; nullopt: unknown
};

/// The first refusal tqd would give `job` on `host`, as tqd words it: "FILE:LINE: user: ..." for
/// a user the password database does not have (or, when tqd does not run as root, that is not
/// its own user), then "FILE:LINE: use: ..." for a resource tqd does not have or more units than
/// it has. Ok when nothing known is refused.
Status CheckJobOnHost(const JobDef& job, const JobHost& host);

}  // namespace tq
