// Skipping a test case at run time so that ctest reports it as skipped, not passed: the marker
// printed here is the SKIP_REGULAR_EXPRESSION of every test in tests/CMakeLists.txt.
#pragma once

#include <doctest/doctest.h>

/// Ends the current test case as skipped, saying why (a precondition the machine lacks).
#define TQ_SKIP(why)              \
  do {                            \
    MESSAGE("[tq-skip] " << why); \
    return;                       \
  } while (0)
