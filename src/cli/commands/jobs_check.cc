// tq jobs check FILE...: job files read as tqd reads them, here in the client; tq-full reads them
// (cli/full/full_runs.h).
#include <memory>

#include "cli/commands/commands.h"
#include "cli/full/full_runs.h"

namespace tq {

Command AddJobsCheck(CLI::App& jobs, const GlobalOptions& g) {
  auto* sub = jobs.add_subcommand(
      "check",
      "Check job files as tqd would read them (locally; names and resources also against a "
      "running daemon)");
  auto paths = std::make_shared<std::vector<std::string>>();
  sub->add_option("file", *paths, "the job files (TOML) to check")->required();
  return {sub, [paths, &g]() { return RunJobsCheck(*paths, g); }};
}

}  // namespace tq
