#include "daemon/host/loop_mailbox.h"

#include "daemon/host/log.h"

#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include <cstdint>
#include <utility>

namespace tq {

LoopMailbox::LoopMailbox(EventLoop& loop) : loop_(loop) {
  fd_ = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
  if (fd_ < 0) {
    LogCritical("eventfd failed: calls of other threads cannot reach the loop");
    return;
  }
  loop_.Watch(fd_, EPOLLIN, [this](uint32_t) { RunPosted(); });
}

LoopMailbox::~LoopMailbox() {
  if (fd_ < 0) return;
  loop_.Unwatch(fd_);
  close(fd_);
}

void LoopMailbox::Post(std::function<void()> call) {
  {
    std::lock_guard<std::mutex> lock(mu_);
    posted_.push_back(std::move(call));
  }
  const uint64_t one = 1;
  if (fd_ >= 0) (void)!write(fd_, &one, sizeof one);  // fails only when the count is full
}

void LoopMailbox::RunPosted() {
  uint64_t count = 0;
  (void)!read(fd_, &count, sizeof count);
  std::vector<std::function<void()>> calls;
  {
    std::lock_guard<std::mutex> lock(mu_);
    calls.swap(posted_);
  }
  for (auto& call : calls) call();
}

}  // namespace tq
