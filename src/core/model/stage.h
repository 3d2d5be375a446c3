// Stages (SPEC 13): the ordered steps of one task, each its own command with, optionally, its own
// timeout and retry settings, run one after the other under the task's id.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "core/model/retry_overrides.h"

namespace tq {

/// At most this many stages per task.
constexpr size_t kMaxStages = 64;
/// A stage's name is 1 to this many bytes of [A-Za-z0-9_.-].
constexpr size_t kMaxStageNameBytes = 64;
/// What a stage's name may be, for refusals.
inline constexpr const char* kStageNameHelp = "1 to 64 of A-Z a-z 0-9 _ . -";

/// One stage of a task as submitted.
struct StageSpec {
  std::string name;
  std::vector<std::string> argv;      ///< executed directly when `shell` is empty
  std::optional<std::string> shell;   ///< run as /bin/sh -c SHELL instead of argv
  std::optional<int64_t> timeout_ms;  ///< its running-time limit; nullopt: the task's
  RetryOverrides retry;               ///< its own retry settings; those unset are the task's
  bool operator==(const StageSpec&) const = default;
};

/// Where one stage of a task is.
enum class StageState { kPending, kRunning, kSucceeded, kFailed, kCancelled, kSkipped };

/// The spelling of `s` ("succeeded").
const char* StageStateName(StageState s);
/// Whether `name` may name a stage: 1..64 bytes of [A-Za-z0-9_.-].
bool ValidStageName(const std::string& name);

}  // namespace tq
