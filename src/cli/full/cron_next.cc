// tq cron next, run: the next firings of a schedule, computed here in the client (no daemon).
#include <cstdio>

#include <nlohmann/json.hpp>

#include "cli/full/full_runs.h"
#include "cli/render.h"
#include "core/cron/cron_expr.h"
#include "core/cron/cron_next.h"
#include "core/cron/cron_zone.h"
#include "core/model/clock.h"
#include "core/model/wall_time.h"

namespace tq {

int RunCronNext(const CronNextFlags& f, const GlobalOptions& g) {
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

  if (g.json) {
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

}  // namespace tq
