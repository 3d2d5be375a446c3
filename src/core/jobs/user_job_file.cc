#include "core/jobs/user_job_file.h"

#include "core/model/quote.h"

namespace tq {

Result<JobFile> ParseUserJobFile(std::string_view text, const std::string& path,
                                 const std::string& user) {
  auto file = ParseJobFile(text, path);
  if (!file.ok()) return file;
  for (JobDef& job : file->jobs) {
    if (!job.user.empty() && job.user != user)
      return Status(ErrorCode::kConfig, "user",
                    path + ":" + std::to_string(job.line) + ": user: " + Quote(job.user) +
                        " is not allowed: the jobs of " + Quote(user) + "'s job file run as " +
                        Quote(user) + " (leave user out)");
    job.user = user;
    job.name = user + "/" + job.name;
  }
  return file;
}

}  // namespace tq
