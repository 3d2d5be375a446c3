#include "core/model/clock.h"

#include <time.h>

namespace tq {

namespace {
int64_t ReadMs(clockid_t id) {
  timespec ts{};
  clock_gettime(id, &ts);
  return static_cast<int64_t>(ts.tv_sec) * 1000 + ts.tv_nsec / 1000000;
}
}  // namespace

WallMs RealClock::WallNow() const {
  return ReadMs(CLOCK_REALTIME);
}
MonoMs RealClock::MonoNow() const {
  return ReadMs(CLOCK_MONOTONIC);
}

}  // namespace tq
