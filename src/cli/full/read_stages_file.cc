// tq submit --stages FILE: the stages file read, as tq-full reads it for tq
// (cli/full/full_runs.h).
#include "cli/commands/submit_stages.h"
#include "cli/job_file_text.h"
#include "core/jobs/stages_file.h"

namespace tq {

Result<std::vector<StageSpec>> ReadStagesFile(const std::string& path) {
  Result<std::string> text = ReadJobFileText(path);
  if (!text.ok()) return Status::Invalid("--stages", "--stages: " + text.status().message());
  auto stages = ParseStagesFile(*text, path == "-" ? "standard input" : path);
  if (!stages.ok()) return Status::Invalid("--stages", stages.status().message());
  return stages;
}

}  // namespace tq
