#include "daemon/cron/overdue_watch.h"

#include "core/jobs/overdue.h"
#include "core/model/duration.h"
#include "core/model/saturating.h"
#include "daemon/host/log.h"

namespace tq {

namespace {
// How soon a check the store failed (a full disk, an I/O error) is made again: the switch of a
// job that keeps failing must not go quiet because the store once did.
constexpr int64_t kRetryAfterStoreErrorMs = 30 * 1000;
}  // namespace

OverdueWatch::OverdueWatch(EventLoop& loop, const Clock& clock, Store& store, Scheduler& scheduler,
                           Notifier& notifier, uint64_t& alerts)
    : loop_(loop),
      clock_(clock),
      store_(store),
      scheduler_(scheduler),
      notifier_(notifier),
      alerts_(alerts) {}

OverdueWatch::~OverdueWatch() {
  if (timer_) loop_.CancelTimer(timer_);
}

void OverdueWatch::Check() {
  if (timer_) loop_.CancelTimer(timer_);
  timer_ = 0;
  const std::vector<Task> runs = scheduler_.SwitchedJobs();
  if (runs.empty()) {
    overdue_.clear();
    return;
  }
  const WallMs now = clock_.WallNow();
  const WallMs retry = SaturatingAdd(now, kRetryAfterStoreErrorMs);
  auto records = store_.JobRecords();
  if (!records.ok()) {
    LogError("dead man's switches not checked: {}; trying again in {}", records.status().message(),
             FormatDuration(kRetryAfterStoreErrorMs));
    Arm(retry);  // overdue_ keeps what the last check found
    return;
  }
  overdue_.clear();
  std::map<std::string, const JobRecord*> by_name;
  for (const JobRecord& r : *records) by_name[r.job] = &r;
  std::optional<WallMs> next;
  for (const Task& run : runs) {
    const std::string& name = *run.spec.job;
    const JobDef* def = scheduler_.Definition(name);
    auto it = by_name.find(name);
    if (def == nullptr || it == by_name.end()) continue;
    const JobRecord& r = *it->second;
    const OverdueState s = CheckOverdue(def->expect_success_within_ms, r.first_seen, r.last_success,
                                        r.overdue_alerted, now);
    overdue_[name] = s.overdue;
    if (!s.overdue) next = next ? std::min(*next, s.deadline) : s.deadline;
    if (!s.alert) continue;
    // Recorded before the alert goes out: a crash in between loses an alert, never repeats one.
    if (Status st = store_.SetJobOverdueAlerted(name, s.since); !st.ok()) {
      LogError("job {}: its overdue alert is not recorded, so not sent: {}; trying again in {}",
               name, st.message(), FormatDuration(kRetryAfterStoreErrorMs));
      next = next ? std::min(*next, retry) : retry;
      continue;
    }
    const std::string reason = "no success within " + FormatDuration(def->expect_success_within_ms);
    LogWarn("job {} is overdue: {} (expect_success_within)", name, reason);
    ++alerts_;
    notifier_.JobOverdue(*def, run, reason);
  }
  if (next) Arm(*next);
}

void OverdueWatch::Arm(WallMs when) {
  timer_ = loop_.AddWallTimer(when, [this] {
    timer_ = 0;
    Check();
  });
}

}  // namespace tq
