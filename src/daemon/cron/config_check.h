// `tqd --check-config` (SPEC 11): the job files checked as the daemon would load them, without
// starting it, so an operator learns of a typo before a reload or a restart meets it.
#pragma once

#include <sys/types.h>

#include <string>

#include "core/model/status.h"
#include "core/model/unit_use.h"

namespace tq {

/// How many job files and jobs a check found good.
struct JobFilesChecked {
  int files = 0;
  int jobs = 0;
};

/// Reads the job files of `jobs_dir` and the users' own under `spool_dir` ("" for none) as a
/// daemon running as `daemon_uid` loads them: the same file checks, parse, users, time zones
/// and names unique across files, and the units each asks of `pools` (tqd.toml's [resources]).
/// The first error comes back as kConfig with the message "FILE:LINE: reason" (no line when the
/// file could not be read).
Result<JobFilesChecked> CheckJobFiles(const std::string& jobs_dir, const std::string& spool_dir,
                                      uid_t daemon_uid, const UnitPools& pools);

}  // namespace tq
