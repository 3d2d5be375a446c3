// Limits on what one request may carry; each refusal names the limit and the value.
#pragma once

#include <cstddef>
#include <cstdint>

namespace tq {

constexpr size_t kMaxArgvCount = 4096;       ///< arguments per task
constexpr size_t kMaxArgvBytes = 1u << 20;   ///< all arguments together (ARG_MAX-like)
constexpr size_t kMaxEnvBytes = 1u << 20;    ///< the captured environment
constexpr size_t kMaxStdinBytes = 8u << 20;  ///< the stdin payload
constexpr size_t kMaxLabels = 32;            ///< labels per task
constexpr size_t kMaxLabelBytes = 128;       ///< one label
constexpr size_t kMaxWaitIds = 100000;       ///< ids in one wait or cancel
/// One argument, shell command or environment entry with its NUL: Linux's MAX_ARG_STRLEN
/// (32 pages), past which execve fails with E2BIG.
constexpr size_t kMaxArgStrlen = 128u << 10;
constexpr size_t kMaxCwdBytes = 4096;         ///< the working directory (PATH_MAX)
constexpr size_t kMaxJsonDepth = 8;           ///< nesting in a request (a batch's b64 argv needs 5)
constexpr size_t kMaxJsonValues = 1u << 20;   ///< JSON values in a request (wait: 100000 ids)
constexpr size_t kMaxBatchTasks = 5000;       ///< tasks in one submit_batch request
constexpr size_t kMaxBatchBytes = 64u << 20;  ///< argv, env, shell and stdin of a whole batch

/// The longest duration a request or a flag may give: 100 years of 365 days (36500d).
constexpr int64_t kMaxDurationMs = 36500LL * 24 * 3600 * 1000;
/// The latest time a request or a flag may give: 9999-12-31T23:59:59.999Z, so every time stays
/// a four-digit-year RFC 3339 time. The earliest is the epoch, 0.
constexpr int64_t kMaxWallMs = 253402300799999;

// What one response may carry, so every response fits a frame (framing.h's kMaxFrameBytes).
constexpr int kMaxListPage = 1000;              ///< tasks in one list response (a page)
constexpr size_t kMaxListPageBytes = 8u << 20;  ///< JSON of one list page (then "more": true)
constexpr size_t kMaxAttemptLog = 1000;         ///< newest attempts in one task's JSON
constexpr size_t kMaxQueueList = 10000;         ///< queues in one queue response
/// The text a list looks for in commands (--command), and the tasks one list request reads to
/// find them before it answers with what it found ("next_before_id" goes on from there).
constexpr size_t kMaxCommandFilterBytes = 1024;
constexpr int kMaxListScan = 10000;

}  // namespace tq
