// tq's stand-ins for what tq-full runs (cli/full/full_runs.h): each runs tq-full in tq's place
// with tq's arguments, after tq has read and checked them.
#include "cli/commands/submit_stages.h"
#include "cli/full/full_runs.h"
#include "cli/full_tq.h"
#include "cli/render.h"

namespace tq {

int RunCronNext(const CronNextFlags&, const GlobalOptions&) {
  return Fail(RunFullTq());
}

int RunCronImport(const CronImportFlags&) {
  return Fail(RunFullTq());
}

int RunJobsCheck(const std::vector<std::string>&, const GlobalOptions&) {
  return Fail(RunFullTq());
}

Result<std::vector<StageSpec>> ReadStagesFile(const std::string&) {
  return RunFullTq();
}

}  // namespace tq
