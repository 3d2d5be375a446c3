// The processor time a process has used, as the kernel counts it: a test that a daemon idles
// reads it before and after a stretch.
#pragma once

#include <doctest/doctest.h>
#include <sys/types.h>

#include <sstream>
#include <string>

#include "support/test_daemon.h"

namespace tqtest {

/// utime + stime of `pid` in clock ticks (sysconf(_SC_CLK_TCK) a second), from /proc/PID/stat.
inline long long CpuTicks(pid_t pid) {
  const std::string stat = ReadFile("/proc/" + std::to_string(pid) + "/stat");
  const size_t paren = stat.rfind(')');
  REQUIRE(paren != std::string::npos);
  std::istringstream fields(stat.substr(paren + 2));
  std::string skip;
  for (int field = 3; field < 14; ++field) fields >> skip;  // state .. cmajflt
  long long utime = 0, stime = 0;
  fields >> utime >> stime;
  return utime + stime;
}

}  // namespace tqtest
