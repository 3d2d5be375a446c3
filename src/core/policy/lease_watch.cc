#include "core/policy/lease_watch.h"

namespace tq {

void LeaseWatch::Beat(WallMs at, int64_t lease_ms) {
  // A beat "before" the last one is the store's clock stepped back: a gap as well.
  if (!last_ || at - *last_ > lease_ms / 2 || at < *last_) since_ = at;
  last_ = at;
}

int64_t LeaseWatch::WatchedMs() const {
  return last_ ? *last_ - since_ : 0;
}

bool LeaseWatch::MayFence(int64_t silent_ms, int64_t lease_ms) const {
  return last_ && WatchedMs() >= lease_ms && silent_ms >= lease_ms;
}

}  // namespace tq
