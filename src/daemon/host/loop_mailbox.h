// Calls that another thread hands to the event loop (the host lease's thread, with what its
// session of the store found): they run on the loop's thread, in the order posted, outside any
// wait for the store (they may use it).
#pragma once

#include <functional>
#include <mutex>
#include <vector>

#include "daemon/host/event_loop.h"

namespace tq {

/// An eventfd the loop watches, and the calls posted behind it.
class LoopMailbox {
 public:
  explicit LoopMailbox(EventLoop& loop);
  ~LoopMailbox();
  LoopMailbox(const LoopMailbox&) = delete;
  LoopMailbox& operator=(const LoopMailbox&) = delete;

  /// From any thread: has the loop run `call` soon. Calls still posted when the mailbox is
  /// destroyed are dropped.
  void Post(std::function<void()> call);

 private:
  void RunPosted();

  EventLoop& loop_;
  int fd_ = -1;
  std::mutex mu_;
  std::vector<std::function<void()>> posted_;
};

}  // namespace tq
