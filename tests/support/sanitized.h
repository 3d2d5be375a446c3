// Whether the tests run in a sanitizer build (TQ_SANITIZE, which defines TQ_SANITIZED for the
// tests' own code, itself not instrumented): every start of tq, tqd or the shim and every
// allocation in them then costs many times more, so the few tests that count work or CPU time
// scale what they expect.
#pragma once

namespace tqtest {

#if defined(TQ_SANITIZED)
/// True in a sanitizer build (scripts/test.sh's second suite).
constexpr bool kSanitized = true;
#else
constexpr bool kSanitized = false;
#endif

}  // namespace tqtest
