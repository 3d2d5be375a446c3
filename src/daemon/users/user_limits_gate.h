// The per-user limits of SPEC 8 as the daemon applies them: whose limits are which (by the
// user's name now, for [users.NAME]), and the checks a submit passes (output_bytes, max_pending,
// submit_rate), each refusal naming its limit and value.
#pragma once

#include <cstdint>
#include <map>

#include "core/config/config.h"
#include "core/model/clock.h"
#include "core/model/status.h"
#include "core/model/task.h"
#include "core/policy/token_bucket.h"
#include "core/store/store.h"
#include "daemon/users/user_names.h"

namespace tq {

/// Changes of one user's own job file at once: more than anyone edits in a sitting.
constexpr int64_t kJobFileChangeBurst = 10;
/// One change every this long after that: a reload a user may make tqd do is cheap this rarely.
constexpr int64_t kJobFileChangeEveryMs = 6000;

/// Applies [user_limits] and [users.NAME]. Lives on the event loop's thread.
class UserLimitsGate {
 public:
  /// Reads the limits through `config` (the daemon's pointer, which must outlive the gate);
  /// users' names are looked up again after `name_ttl_ms`.
  UserLimitsGate(const Clock& clock, const ConfigPtr& config, int64_t name_ttl_ms)
      : clock_(clock), config_(config), names_(clock, name_ttl_ms) {}

  /// The limits of the user `uid`; nullptr for root and the daemon's own user, who have none.
  const UserLimits* Of(uint32_t uid);
  /// Refuses `count` new tasks of `peer`, who has `queued` more in a submit group not yet
  /// stored, that output_bytes, max_pending or submit_rate forbids (kLimit naming the limit and
  /// its value; nothing is taken then); otherwise takes `count` tokens from their bucket.
  Status Admit(Store& store, const Owner& peer, int64_t count, int64_t queued);
  /// Refuses a change of `peer`'s own job file (install or remove: a reload of it each) past
  /// kJobFileChangeBurst at once and one every kJobFileChangeEveryMs after that (kLimit);
  /// root and the daemon's own user are not limited.
  Status AdmitJobFileChange(const Owner& peer);

 private:
  const Clock& clock_;
  const ConfigPtr& config_;
  UserNameCache names_;
  std::map<uint32_t, TokenBucket> buckets_;           ///< submit_rate, per user
  std::map<uint32_t, TokenBucket> job_file_changes_;  ///< AdmitJobFileChange, per user
};

}  // namespace tq
