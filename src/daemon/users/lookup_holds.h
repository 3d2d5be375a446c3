// The owners whose tasks wait because their account could not be looked up (the name service
// is down): their tasks stay pending with no attempt used, and are tried again later.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <set>

#include "core/model/clock.h"
#include "core/model/status.h"
#include "core/model/task.h"

namespace tq {

/// The owners whose account could not be looked up (the name service is down, AccountOf's
/// kInternal): their tasks wait, untouched, and are tried again kRetryMs later. Each task's wait
/// is logged once per outage.
class LookupHolds {
 public:
  /// How long an owner's tasks wait before their account is looked up again.
  static constexpr MonoMs kRetryMs = 30 * 1000;

  explicit LookupHolds(const Clock& clock) : clock_(clock) {}
  /// Whether the tasks of the uid `owner` wait now.
  bool Held(uint32_t owner) const;
  /// Holds back the uid `owner` for kRetryMs after the lookup of their account failed (`why`);
  /// logs the wait of their task `task` unless it was logged in this outage.
  void Hold(TaskId task, uint32_t owner, const Status& why);
  /// The account of the uid `owner` was looked up: their outage is over (logged if they waited).
  void Release(uint32_t owner);
  /// The monotonic time of the next retry, when an owner waits.
  std::optional<MonoMs> NextRetry() const;

 private:
  /// One owner's wait: until when, and the tasks whose wait was logged in this outage.
  struct Wait {
    MonoMs until = 0;
    std::set<TaskId> logged;
  };
  const Clock& clock_;
  std::map<uint32_t, Wait> waits_;  ///< by uid
};

}  // namespace tq
