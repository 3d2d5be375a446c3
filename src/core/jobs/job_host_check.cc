#include "core/jobs/job_host_check.h"

#include "core/model/quote.h"

namespace tq {

namespace {

Status CheckJobUser(const JobDef& job, const JobHost& host) {
  if (job.user.empty()) return Status::Ok();  // the daemon's own user
  const AccountFound found = host.lookup(job.user);
  const auto refuse = [&](const std::string& reason) {
    return Status::Invalid("user", JobWhere(job, "user") + "user: " + reason);
  };
  if (host.daemon_uid && *host.daemon_uid != 0) {
    if (found.kind == AccountFound::Kind::kFound && found.uid == *host.daemon_uid)
      return Status::Ok();
    return refuse(Quote(job.user) +
                  " is not the user this daemon runs as (only the system daemon runs jobs as "
                  "other users; leave user out)");
  }
  switch (found.kind) {
    case AccountFound::Kind::kFound:
      return Status::Ok();
    case AccountFound::Kind::kError:
      return refuse("cannot look up " + Quote(job.user) + ": " + found.error);
    case AccountFound::Kind::kMissing:
      break;
  }
  return refuse(Quote(job.user) + " is not in the password database (name an existing user)");
}

Status CheckJobUnits(const JobDef& job, const UnitPools& pools) {
  const Status st = CheckUnitRequest(job.use, pools);
  if (st.ok()) return st;
  return Status::Invalid("use", JobWhere(job, "use") + st.message());
}

}  // namespace

Status CheckJobOnHost(const JobDef& job, const JobHost& host) {
  if (Status user = CheckJobUser(job, host); !user.ok()) return user;
  if (host.pools) return CheckJobUnits(job, *host.pools);
  return Status::Ok();
}

}  // namespace tq
