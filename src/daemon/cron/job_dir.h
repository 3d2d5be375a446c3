// Reading a jobs directory (SPEC 7): its `*.toml` files in name order, each read whole but
// bounded, with the checks that keep a FIFO, a device or (system daemon) a file others may write
// from becoming jobs.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "core/jobs/job_status.h"
#include "core/model/status.h"

namespace tq {

/// One job file as read from the directory: its text, or why it could not be read.
struct JobFileRead {
  std::string path;
  std::string text;                   ///< the file's bytes, when `error` is empty
  std::optional<JobLoadError> error;  ///< why the file could not be used
  std::string user;  ///< a user's own job file (the spool): whose it is; "" for the job files
};

/// The job files of `dir`: every `NAME.toml` whose NAME is not empty and does not start with
/// '.' (editors' lock and backup files), in byte order of their names; symbolic links are
/// followed. A missing directory holds none. A file that cannot be opened or read, is not a
/// regular file, is larger than kMaxJobFileBytes or has a name that is not UTF-8 comes back with
/// its error. `strict_owner` (the system daemon, whose jobs may run as any user): a file must
/// belong to root and be writable by no one else, as cron asks of /etc/cron.d. Fails with
/// kConfig naming the directory and the reason only when the directory exists but cannot be
/// listed.
Result<std::vector<JobFileRead>> ReadJobDir(const std::string& dir, bool strict_owner);
/// The job file at `path` as ReadJobDir reads each, in a list of one; none when there is no
/// such file.
Result<std::vector<JobFileRead>> ReadJobFileIfAny(const std::string& path, bool strict_owner);

}  // namespace tq
