// A user's own job file (`tq jobs install`, what `crontab -e` gives on a cron host): a job file
// whose jobs run as that user and carry the user's name in theirs, so no user can take a name the
// system's job files use, or run anything as someone else.
#pragma once

#include <string>
#include <string_view>

#include "core/jobs/job_file.h"

namespace tq {

/// Parses `text` as ParseJobFile does, for the user `user`: every job runs as `user` (a `user`
/// key naming anyone else is refused: "<path>:<line>: user: ...") and is named USER/NAME.
Result<JobFile> ParseUserJobFile(std::string_view text, const std::string& path,
                                 const std::string& user);

}  // namespace tq
