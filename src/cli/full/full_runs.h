// What tq-full runs for tq: the parts of tq's commands that need cctz (cron times in any zone) or
// toml++ (job and stages files). Their options are read by tq (src/cli/commands/); tq itself is
// built with a stand-in for each function below that runs tq-full in its place with the same
// arguments (src/cli/hand_off/), and tq-full with the real ones (src/cli/full/). The stages of
// `tq submit --stages FILE` go the same way (ReadStagesFile, cli/commands/submit_stages.h).
#pragma once

#include <string>
#include <vector>

#include "cli/commands/commands.h"

namespace tq {

/// tq cron next's options.
struct CronNextFlags {
  std::vector<std::string> words;  ///< the expression, possibly split by the shell
  std::string tz;                  ///< --tz; empty: $TZ, then /etc/localtime
  std::string from;                ///< --from; empty: now
  std::string dst = "cron";        ///< --dst
  int count = 5;                   ///< --count: a week's pattern of a daily job at a glance
};

/// tq cron import's options.
struct CronImportFlags {
  std::string file;  ///< "" or "-": standard input
  bool system = false;
  bool user_format = false;
};

/// Prints the next firings of `f`'s schedule; returns the exit code.
int RunCronNext(const CronNextFlags& f, const GlobalOptions& g);
/// Prints `f`'s crontab as a job file, and what could not be converted; returns the exit code.
int RunCronImport(const CronImportFlags& f);
/// Checks the job files `paths` as tqd would read them; returns the exit code.
int RunJobsCheck(const std::vector<std::string>& paths, const GlobalOptions& g);

}  // namespace tq
