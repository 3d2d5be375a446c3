// Limits on what one request may carry; each refusal names the limit and the value.
#pragma once

#include <cstddef>

namespace tq {

constexpr size_t kMaxArgvCount = 4096;       ///< arguments per task
constexpr size_t kMaxArgvBytes = 1u << 20;   ///< all arguments together (ARG_MAX-like)
constexpr size_t kMaxEnvBytes = 1u << 20;    ///< the captured environment
constexpr size_t kMaxStdinBytes = 8u << 20;  ///< the stdin payload
constexpr size_t kMaxLabels = 32;            ///< labels per task
constexpr size_t kMaxLabelBytes = 128;       ///< one label
constexpr size_t kMaxWaitIds = 100000;       ///< ids in one wait or cancel
constexpr size_t kMaxCwdBytes = 4096;        ///< the working directory (PATH_MAX)

// What one response may carry, so every response fits a frame (framing.h's kMaxFrameBytes).
constexpr int kMaxListPage = 1000;              ///< tasks in one list response (a page)
constexpr size_t kMaxListPageBytes = 8u << 20;  ///< JSON of one list page (then "more": true)
constexpr size_t kMaxAttemptLog = 1000;         ///< newest attempts in one task's JSON
constexpr size_t kMaxQueueList = 10000;         ///< queues in one queue response

}  // namespace tq
