// tq cron next: the next firings of a schedule, computed in the client (no daemon); tq-full
// computes them (cli/full/full_runs.h).
#include <memory>

#include "cli/arg_checks.h"
#include "cli/commands/commands.h"
#include "cli/full/full_runs.h"

namespace tq {

namespace {

constexpr int kMaxCount = 10000;  // enough for any script; keeps a typo from printing forever

}  // namespace

Command AddCronNext(CLI::App& app, const GlobalOptions& g) {
  auto* sub = app.add_subcommand(
      "next", "Print the next firings of a cron schedule (computed locally; no daemon needed)");
  auto f = std::make_shared<CronNextFlags>();
  sub->add_option("expression", f->words,
                  "the schedule: 5 or 6 fields, or a macro (quote it: '0 2 * * *')")
      ->required();
  sub->add_option("--tz", f->tz, "the time zone (default: $TZ, then /etc/localtime)");
  sub->add_option("--from", f->from,
                  "print firings strictly after this time (default: now); local times are in --tz");
  sub->add_option("--count", f->count, "how many firings to print (default 5)")
      ->check(DecimalCheck({1, kMaxCount, "a count"}));
  sub->add_option("--dst", f->dst,
                  "what a fixed-hour time does across DST: cron, skip, "
                  "first or both (default cron)");
  return {sub, [f, &g]() { return RunCronNext(*f, g); }};
}

}  // namespace tq
