// tq cron import: a crontab turned into a job file, computed in the client (no daemon); tq-full
// converts it (cli/full/full_runs.h).
#include <memory>

#include "cli/commands/commands.h"
#include "cli/full/full_runs.h"

namespace tq {

Command AddCronImport(CLI::App& cron, const GlobalOptions&) {
  auto* sub = cron.add_subcommand(
      "import",
      "Convert a crontab to a tq job file: TOML on stdout, lines it cannot convert on stderr "
      "(exit 1 when there are any)");
  auto f = std::make_shared<CronImportFlags>();
  sub->add_option("FILE", f->file,
                  "the crontab (default: standard input); /etc/crontab and /etc/cron.d/* are "
                  "read as system crontabs, others as the entries say");
  auto* system =
      sub->add_flag("--system", f->system,
                    "the crontab has a user column after the schedule (/etc/crontab, /etc/cron.d)");
  sub->add_flag("--user-format", f->user_format,
                "the crontab is a user's (crontab -e): no user column, whatever its entries say")
      ->excludes(system);
  return {sub, [f]() { return RunCronImport(*f); }};
}

}  // namespace tq
