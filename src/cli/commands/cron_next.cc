// tq cron next: the next firings of a schedule, computed here in the client (no daemon).
#include <cstdio>
#include <memory>

#include <nlohmann/json.hpp>

#include "cli/arg_checks.h"
#include "cli/commands/commands.h"
#include "cli/render.h"
#include "core/cron/cron_expr.h"
#include "core/cron/cron_next.h"
#include "core/cron/cron_zone.h"
#include "core/model/clock.h"
#include "core/model/wall_time.h"

namespace tq {

namespace {

constexpr int kDefaultCount = 5;  // a week's pattern of a daily job is visible at a glance
constexpr int kMaxCount = 10000;  // enough for any script; keeps a typo from printing forever

struct CronNextFlags {
  std::vector<std::string> words;  // the expression, possibly split by the shell
  std::string tz, from, dst = "cron";
  int count = kDefaultCount;
};

int Run(const CronNextFlags& f, bool json) {
  std::string text;
  for (const std::string& w : f.words) text += (text.empty() ? "" : " ") + w;
  Result<CronExpr> expr = ParseCron(text);
  if (!expr.ok()) return Fail(expr.status());
  Result<DstPolicy> dst = ParseDstPolicy(f.dst, "--dst");
  if (!dst.ok()) return Fail(dst.status());
  Result<TimeZone> zone = f.tz.empty() ? LocalTimeZone() : LoadTimeZone(f.tz, "--tz");
  if (!zone.ok()) return Fail(zone.status());
  const WallMs now = RealClock().WallNow();
  WallMs after = now;
  if (!f.from.empty()) {
    Result<WallMs> from = ParseTimeInZone(f.from, *zone, now, "--from");
    if (!from.ok()) return Fail(from.status());
    after = *from;  // firings strictly after it, as NextFire counts (@every: the last firing)
  }

  std::vector<WallMs> firings;
  Status error;
  for (int i = 0; i < f.count; ++i) {
    Result<WallMs> next = NextFire(*expr, after, *zone, *dst);
    if (!next.ok()) {
      error = next.status();
      break;
    }
    firings.push_back(*next);
    after = *next;
  }

  if (json) {
    nlohmann::json local = nlohmann::json::array(), utc = nlohmann::json::array();
    for (WallMs t : firings) {
      local.push_back(FormatRfc3339InZone(t, *zone));
      utc.push_back(FormatRfc3339Utc(t));
    }
    nlohmann::json out = {{"expression", expr->text},
                          {"zone", zone->name()},
                          {"dst", DstPolicyName(*dst)},
                          {"firings", local},
                          {"firings_utc", utc}};
    if (!error.ok()) out["error"] = error.message();
    std::printf("%s\n", out.dump().c_str());
  } else {
    for (WallMs t : firings) std::printf("%s\n", FormatRfc3339InZone(t, *zone).c_str());
  }
  std::fflush(stdout);
  return error.ok() ? 0 : Fail(error);
}

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
  return {sub, [f, &g]() { return Run(*f, g.json); }};
}

}  // namespace tq
