#include "core/jobs/firing_plan.h"

#include <algorithm>
#include <utility>

namespace tq {

namespace {

// A job's firings after `floor` (its last firing): the latest at or before a time, found by a
// search that costs a few dozen NextFire calls however long ago `floor` is, and how many lie in
// a stretch, counted up to a cap. Every NextFire call refusing is passed on.
class Firings {
 public:
  Firings(const JobDef& job, const TimeZone& zone, WallMs floor)
      : job_(job), zone_(zone), floor_(floor) {}

  // The first firing after `floor`; call it before the others (it also checks `floor`).
  Status Start() {
    Result<WallMs> first = After(floor_);
    if (!first.ok()) return first.status();
    first_ = *first;
    return Status::Ok();
  }

  // The latest firing in (floor, hi], or none.
  Result<std::optional<WallMs>> Latest(WallMs hi) {
    if (first_ > hi) return std::optional<WallMs>();
    if (job_.schedule.kind == CronKind::kEvery) {
      const int64_t every = job_.schedule.every_ms;
      return std::optional<WallMs>(floor_ + (hi - floor_) / every * every);
    }
    // Invariant: NextFire(yes) <= hi < NextFire(no). NextFire depends only on the whole second
    // of its argument, so once `yes` and `no` are at most a second apart, NextFire(yes) is the
    // latest firing. Probe backwards from `hi` in doubling steps, then halve the gap.
    WallMs yes = floor_, no = hi, yes_fire = first_;
    auto probe = [&](WallMs t) -> Status {
      Result<WallMs> f = After(t);
      if (!f.ok()) return f.status();
      if (*f > hi) {
        no = t;
      } else {
        // The firing found is the first after t, so the millisecond before it leads to it too.
        yes = std::max(t, *f - 1);
        yes_fire = *f;
      }
      return Status::Ok();
    };
    for (int64_t step = 1000; yes == floor_ && hi - step > floor_; step *= 2) {
      if (Status s = probe(hi - step); !s.ok()) return s;
    }
    while (Second(no) - Second(yes) > 1) {
      if (Status s = probe((Second(yes) + (Second(no) - Second(yes)) / 2) * 1000); !s.ok()) {
        return s;
      }
    }
    return std::optional<WallMs>(yes_fire);
  }

  // How many firings lie in (floor, before), counting no further than `cap`.
  Result<int> CountBefore(WallMs before, int cap) {
    if (job_.schedule.kind == CronKind::kEvery) {
      if (before <= floor_ + 1) return 0;
      return static_cast<int>(
          std::min<int64_t>(cap, (before - 1 - floor_) / job_.schedule.every_ms));
    }
    int n = 0;
    for (WallMs t = first_; n < cap && t < before; ++n) {
      Result<WallMs> next = After(t);
      if (!next.ok()) return next.status();
      t = *next;
    }
    return n;
  }

 private:
  Result<WallMs> After(WallMs t) const { return NextFire(job_.schedule, t, zone_, job_.dst); }
  static int64_t Second(WallMs t) { return t >= 0 ? t / 1000 : -((-t + 999) / 1000); }

  const JobDef& job_;
  const TimeZone& zone_;
  const WallMs floor_;
  WallMs first_ = 0;
};

// `plan` with its next firing: the first after `now` and the last one, or for @every the last
// one plus its interval (@every fires at the previous firing plus its interval).
Result<FiringPlan> WithNext(FiringPlan plan, const JobDef& job, const TimeZone& zone, WallMs now) {
  const WallMs after = job.schedule.kind == CronKind::kEvery ? plan.last : std::max(now, plan.last);
  Result<WallMs> next = NextFire(job.schedule, after, zone, job.dst);
  if (!next.ok()) return next.status();
  plan.next = *next;
  return plan;
}

}  // namespace

WallMs ArrivalMark(const JobDef& job, WallMs last, WallMs now) {
  const WallMs mark = now - 1;
  if (last >= mark) return last;
  if (job.schedule.kind != CronKind::kEvery) return mark;
  const int64_t every = job.schedule.every_ms;
  return last + (mark - last) / every * every;
}

Result<FiringPlan> PlanFirings(const JobDef& job, const TimeZone& zone, WallMs last, WallMs now) {
  FiringPlan plan;
  plan.last = last;
  if (job.schedule.kind == CronKind::kReboot) return plan;
  // Nothing is due; a clock stepped back before `last` fires nothing again.
  if (now <= last) return WithNext(plan, job, zone, now);

  // NextFire accepts `now` and `last` (so the arithmetic on them below cannot overflow).
  if (Result<WallMs> check = NextFire(job.schedule, now, zone, job.dst); !check.ok()) {
    return check.status();
  }
  Firings firings(job, zone, last);
  if (Status s = firings.Start(); !s.ok()) return s;
  Result<std::optional<WallMs>> latest = firings.Latest(now);
  if (!latest.ok()) return latest.status();
  if (!latest->has_value()) return WithNext(plan, job, zone, now);
  plan.last = **latest;

  // The firings run are the newest ones, contiguous: the latest when on time, then the missed
  // ones the policy catches up on while they are not too late.
  const bool on_time = now - plan.last <= kMisfireGraceMs;
  size_t limit = 1;
  if (job.misfire == Misfire::kSkip) limit = on_time ? 1 : 0;
  if (job.misfire == Misfire::kRunAll)
    limit = static_cast<size_t>(std::clamp(job.max_catch_up, 1, kMaxCatchUp));
  std::optional<WallMs> firing = plan.last;
  while (firing && plan.fire.size() < limit) {
    const bool missed = !(on_time && *firing == plan.last);
    if (missed && job.misfire == Misfire::kSkip) break;
    if (missed && job.max_lateness_ms > 0 && now - *firing > job.max_lateness_ms) break;
    plan.fire.push_back(*firing);
    if (plan.fire.size() == limit) break;
    Result<std::optional<WallMs>> older = firings.Latest(*firing - 1);
    if (!older.ok()) return older.status();
    firing = *older;
  }
  std::reverse(plan.fire.begin(), plan.fire.end());

  // Every due firing older than the oldest one run is not run: missed when older than the
  // grace, else merely late.
  const WallMs cut = plan.fire.empty() ? plan.last + 1 : plan.fire.front();
  Result<int> not_run = firings.CountBefore(cut, kMaxDroppedCount);
  if (!not_run.ok()) return not_run.status();
  Result<int> missed = firings.CountBefore(std::min(cut, now - kMisfireGraceMs), kMaxDroppedCount);
  if (!missed.ok()) return missed.status();
  plan.dropped = *missed;
  plan.late = std::max(0, *not_run - *missed);
  return WithNext(std::move(plan), job, zone, now);
}

}  // namespace tq
