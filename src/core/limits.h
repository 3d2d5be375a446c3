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
/// One argument, shell command or environment entry with its NUL: Linux's MAX_ARG_STRLEN
/// (32 pages), past which execve fails with E2BIG.
constexpr size_t kMaxArgStrlen = 128u << 10;

}  // namespace tq
