// libFuzzer target for the cron engine: ParseCron on arbitrary text, then NextFire a few times in
// a zone and dst policy the input picks, checking what must always hold. Build with
// -DTQ_FUZZ=ON and clang; see README "Fuzzing".
//
// Input: the expression, then optionally '\n' and control bytes: [0] zone, [1] dst policy,
// [2..9] the starting instant (little-endian; bit 0 picks 1900..2100 or 0001-01-02..9999).
#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <string_view>

#include "core/cron/cron_expr.h"
#include "core/cron/cron_next.h"
#include "core/cron/cron_zone.h"
#include "core/model/wall_time.h"

namespace {

using tq::WallMs;

// Zones with unusual histories: 30- and 45-minute offsets and shifts, a skipped day (Apia 2011),
// a 2-hour DST (Troll), negative DST (Dublin), rules that changed (Moscow, Sao Paulo), midnight
// transitions (Havana) and local mean time with seconds (everything before ~1900).
constexpr const char* kZones[] = {
    "UTC",
    "Europe/Berlin",
    "America/New_York",
    "Australia/Lord_Howe",
    "Europe/Moscow",
    "America/Sao_Paulo",
    "Pacific/Apia",
    "Pacific/Chatham",
    "Asia/Kolkata",
    "America/St_Johns",
    "Antarctica/Troll",
    "Europe/Dublin",
    "America/Havana",
    "Africa/Casablanca",
    "America/Sitka",
    "Asia/Tehran",
};
constexpr int kZoneCount = sizeof(kZones) / sizeof(kZones[0]);
constexpr tq::DstPolicy kPolicies[] = {tq::DstPolicy::kCron, tq::DstPolicy::kSkip,
                                       tq::DstPolicy::kFirst, tq::DstPolicy::kBoth};

const cctz::civil_second kEpoch(1970, 1, 1, 0, 0, 0);
[[noreturn]] void Fail(const char* what) {
  std::fprintf(stderr, "cron_fuzz: %s\n", what);
  std::abort();
}

const tq::TimeZone& ZoneAt(int i) {
  static tq::TimeZone* zones = [] {
    auto* z = new tq::TimeZone[kZoneCount];
    for (int k = 0; k < kZoneCount; ++k) {
      auto r = tq::LoadTimeZone(kZones[k]);
      if (!r.ok()) Fail(r.status().message().c_str());  // tzdata is missing a zone
      z[k] = *r;
    }
    return z;
  }();
  return zones[i];
}

// A firing whose wall time does not match the fields must be a gap firing the policy allows.
void CheckFiring(const tq::CronExpr& e, WallMs t, const tq::TimeZone& zone, tq::DstPolicy dst) {
  if (t % 1000 != 0) Fail("a firing that is not a whole second");
  const cctz::time_point<cctz::seconds> tp{cctz::seconds(t / 1000)};
  const cctz::civil_second cs = zone.zone().lookup(tp).cs;
  const bool matches = e.DayMatches(cs.year(), cs.month(), cs.day()) &&
                       (e.hours >> cs.hour() & 1) && (e.minutes >> cs.minute() & 1) &&
                       (e.seconds >> cs.second() & 1);
  if (matches) return;
  if (e.hour_elapsed || dst == tq::DstPolicy::kSkip) Fail("a firing that does not match");
  // The offset must grow at this very instant (cctz's lookup knows every year; its transition
  // list does not), and the policy must allow a gap firing.
  const int before = zone.zone().lookup(tp - cctz::seconds(1)).offset;
  if (!(zone.zone().lookup(tp).offset > before)) Fail("a non-matching firing not at a gap's end");
}

// No instant strictly between two firings may have been due: walks whole minutes (for
// minute-resolution schedules and short stretches, to keep the fuzzer fast).
void CheckNoneMissed(const tq::CronExpr& e, WallMs after, WallMs next, const tq::TimeZone& zone,
                     tq::DstPolicy dst) {
  constexpr int64_t kMinute = 60 * 1000;
  if (e.seconds != 1 || next - after > 6 * 60 * kMinute) return;
  for (int64_t m = (after / kMinute + 1) * kMinute; m < next; m += kMinute) {
    if (m <= after) continue;
    const cctz::time_point<cctz::seconds> tp{cctz::seconds(m / 1000)};
    const cctz::civil_second cs = zone.zone().lookup(tp).cs;
    if (!e.DayMatches(cs.year(), cs.month(), cs.day()) || !(e.hours >> cs.hour() & 1) ||
        !(e.minutes >> cs.minute() & 1)) {
      continue;
    }
    if (!e.hour_elapsed && dst != tq::DstPolicy::kBoth) {
      const cctz::time_zone::civil_lookup cl = zone.zone().lookup(cs);
      if (cl.kind == cctz::time_zone::civil_lookup::REPEATED && tp == cl.post) continue;
    }
    Fail("NextFire skipped a due instant");
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view input(reinterpret_cast<const char*>(data), size);
  const size_t nl = input.find('\n');
  const std::string_view text = input.substr(0, nl);
  const std::string_view ctl = nl == std::string_view::npos ? "" : input.substr(nl + 1);

  tq::Result<tq::CronExpr> e = tq::ParseCron(text);
  if (!e.ok()) {
    if (e.status().field().empty() || e.status().message().empty()) Fail("a bare error");
    return 0;
  }
  // The text it keeps parses to the same thing.
  tq::Result<tq::CronExpr> again = tq::ParseCron(e->text);
  if (!again.ok() || again->kind != e->kind || again->minutes != e->minutes ||
      again->hours != e->hours || again->days != e->days || again->weekdays != e->weekdays) {
    Fail("ParseCron(e.text) differs from e");
  }

  const tq::TimeZone& zone = ZoneAt(ctl.size() > 0 ? static_cast<uint8_t>(ctl[0]) % kZoneCount : 0);
  const tq::DstPolicy dst = kPolicies[ctl.size() > 1 ? static_cast<uint8_t>(ctl[1]) % 4 : 0];
  uint64_t bits = 0;
  if (ctl.size() > 2) std::memcpy(&bits, ctl.data() + 2, std::min<size_t>(8, ctl.size() - 2));
  const bool wide = bits & 1;
  const int64_t lo =
      (cctz::civil_second(wide ? 1 : 1900, 1, wide ? 2 : 1, 0, 0, 0) - kEpoch) * 1000;
  const int64_t hi = (cctz::civil_second(wide ? 10000 : 2100, 1, 1, 0, 0, 0) - kEpoch) * 1000;
  WallMs after = lo + static_cast<int64_t>((bits >> 1) % static_cast<uint64_t>(hi - lo));

  for (int i = 0; i < 6; ++i) {
    tq::Result<WallMs> next = tq::NextFire(*e, after, zone, dst);
    if (!next.ok()) {
      if (e->kind == tq::CronKind::kFields &&
          next.status().message().find("never") == std::string::npos &&
          next.status().message().find("10000") == std::string::npos) {
        Fail("an unexpected NextFire error");
      }
      break;
    }
    if (*next <= after) Fail("NextFire went backwards");
    if (e->kind == tq::CronKind::kFields) {
      CheckFiring(*e, *next, zone, dst);
      CheckNoneMissed(*e, after, *next, zone, dst);
    }
    // What `tq cron next` prints reads back as the same instant.
    if (*next % 1000 != 0) break;  // @every from a time with milliseconds
    const std::string shown = tq::FormatRfc3339InZone(*next, zone);
    tq::Result<WallMs> back = tq::ParseRfc3339(shown);
    if (!back.ok() || *back != *next) Fail("FormatRfc3339InZone does not round-trip");
    after = *next;
  }
  return 0;
}
