// Whether the tests run under AddressSanitizer: every process start and allocation then costs
// many times more, so the few tests that count work or CPU time scale what they expect.
#pragma once

namespace tqtest {

#if defined(__SANITIZE_ADDRESS__)
/// True in a sanitizer build (scripts/test.sh's second suite).
constexpr bool kSanitized = true;
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
constexpr bool kSanitized = true;
#else
constexpr bool kSanitized = false;
#endif
#else
constexpr bool kSanitized = false;
#endif

}  // namespace tqtest
