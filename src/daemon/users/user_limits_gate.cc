#include "daemon/users/user_limits_gate.h"

#include <unistd.h>

#include <string>

#include <fmt/core.h>

#include "core/model/quote.h"

namespace tq {

const UserLimits* UserLimitsGate::Of(uint32_t uid) {
  if (uid == 0 || uid == geteuid()) return nullptr;
  return &config_->LimitsFor(names_.Name(uid));
}

Status UserLimitsGate::Admit(Store& store, const Owner& peer, int64_t count, int64_t queued) {
  const UserLimits* limits = Of(peer.uid);
  if (limits == nullptr) return Status::Ok();
  const std::string who = "user " + Quote(peer.name);
  const auto refuse = [](const char* limit, const std::string& why) {
    return Status(ErrorCode::kLimit, limit, std::string(limit) + ": " + why);
  };
  auto kept = store.OutputOf(peer.uid);
  if (!kept.ok()) return kept.status();
  if (*kept >= limits->output_bytes)
    return refuse("output_bytes", who + " keeps " + std::to_string(*kept) +
                                      " bytes of output, and output_bytes allows " +
                                      std::to_string(limits->output_bytes) +
                                      " (it is freed as old tasks are purged after purge_after)");
  auto pending = store.PendingOf(peer.uid);
  if (!pending.ok()) return pending.status();
  *pending += queued;
  if (*pending + count > limits->max_pending)
    return refuse("max_pending", who + " has " + std::to_string(*pending) +
                                     " pending tasks, and max_pending allows " +
                                     std::to_string(limits->max_pending));
  const int64_t wait_ms =
      buckets_[peer.uid].Take(count, clock_.MonoNow(), limits->submit_rate, limits->submit_burst);
  if (wait_ms < 0)
    return refuse("submit_burst", "a batch of " + std::to_string(count) +
                                      " tasks is more than submit_burst allows at once (" +
                                      std::to_string(limits->submit_burst) + ")");
  if (wait_ms > 0)
    return refuse("submit_rate",
                  who + " submits faster than submit_rate allows (" +
                      fmt::format("{:g}", limits->submit_rate) + " tasks a second, " +
                      std::to_string(limits->submit_burst) + " at once); try again in " +
                      fmt::format("{:.3f}", static_cast<double>(wait_ms) / 1000) + " s");
  return Status::Ok();
}

Status UserLimitsGate::AdmitJobFileChange(const Owner& peer) {
  if (Of(peer.uid) == nullptr) return Status::Ok();
  const int64_t wait_ms = job_file_changes_[peer.uid].Take(
      1, clock_.MonoNow(), 1000.0 / kJobFileChangeEveryMs, kJobFileChangeBurst);
  if (wait_ms == 0) return Status::Ok();
  return Status(ErrorCode::kLimit, "jobs",
                "jobs: user " + Quote(peer.name) + " changes their job file faster than allowed (" +
                    std::to_string(kJobFileChangeBurst) + " changes at once, then one every " +
                    std::to_string(kJobFileChangeEveryMs / 1000) + " s); try again in " +
                    fmt::format("{:.3f}", static_cast<double>(wait_ms) / 1000) + " s");
}

}  // namespace tq
