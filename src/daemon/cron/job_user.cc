#include "daemon/cron/job_user.h"

#include <pwd.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <vector>

#include "core/model/quote.h"

namespace tq {

namespace {

JobUser FromEntry(const passwd& pw) {
  const bool has_home = pw.pw_dir != nullptr && pw.pw_dir[0] == '/';
  return JobUser{Owner{pw.pw_uid, pw.pw_gid, pw.pw_name}, has_home ? pw.pw_dir : "/"};
}

Status Refuse(const JobDef& job, const std::string& reason) {
  return Status::Invalid("user", JobWhere(job, "user") + "user: " + reason);
}

}  // namespace

Result<JobUser> JobUserOf(const JobDef& job, uid_t daemon_uid) {
  std::vector<char> buf(16384);
  passwd pw{};
  passwd* found = nullptr;
  if (job.user.empty()) {
    if (getpwuid_r(daemon_uid, &pw, buf.data(), buf.size(), &found) == 0 && found)
      return FromEntry(pw);
    // A uid without an entry (a container's arbitrary uid): its number stands for its name.
    return JobUser{Owner{daemon_uid, getegid(), std::to_string(daemon_uid)}, "/"};
  }
  const int rc = getpwnam_r(job.user.c_str(), &pw, buf.data(), buf.size(), &found);
  if (daemon_uid != 0) {
    if (found && pw.pw_uid == daemon_uid) return FromEntry(pw);
    return Refuse(job, Quote(job.user) +
                           " is not the user this daemon runs as (only the system daemon runs "
                           "jobs as other users; leave user out)");
  }
  if (found) return FromEntry(pw);
  if (rc != 0)
    return Refuse(job, "cannot look up " + Quote(job.user) + ": " + std::string(strerror(rc)));
  return Refuse(job, Quote(job.user) + " is not in the password database (name an existing user)");
}

}  // namespace tq
