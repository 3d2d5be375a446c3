#include "daemon/run/unstored_ends.h"

#include <utility>

#include "daemon/host/log.h"
#include "daemon/host/store_faults.h"

namespace tq {

UnstoredEnds::UnstoredEnds(EventLoop& loop, const Clock& clock, Apply apply)
    : loop_(loop), clock_(clock), apply_(std::move(apply)), delay_ms_(StoreFaults::kFirstPauseMs) {}

UnstoredEnds::~UnstoredEnds() {
  if (timer_) loop_.CancelTimer(timer_);
}

void UnstoredEnds::Add(AttemptEnd end) {
  const TaskId id = end.id;
  ends_.insert_or_assign(id, std::move(end));
  Arm();
}

void UnstoredEnds::Arm() {
  if (timer_) return;
  timer_ = loop_.AddTimer(clock_.MonoNow() + delay_ms_, [this] {
    timer_ = 0;
    TryAll();
  });
}

void UnstoredEnds::TryAll() {
  std::map<TaskId, AttemptEnd> ends = std::move(ends_);
  ends_.clear();
  size_t left = 0;
  for (auto& [id, end] : ends) {
    Status st = apply_(end);
    if (st.ok()) {
      LogInfo("task {} attempt {}: its end is stored now", id, end.attempt);
    } else if (st.fault() == StoreFault::kNone) {
      continue;  // refused for good: apply_ told why
    } else {
      LogDebug("task {} attempt {}: its end is still not stored: {}", id, end.attempt,
               st.message());
      ends_.insert_or_assign(id, std::move(end));
      ++left;
    }
  }
  delay_ms_ = left == 0 ? StoreFaults::kFirstPauseMs : StoreFaults::NextPause(delay_ms_);
  if (left > 0) Arm();
}

}  // namespace tq
