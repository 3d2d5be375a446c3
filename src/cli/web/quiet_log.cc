#include "cli/web/quiet_log.h"

#include <unistd.h>

namespace tq {

void QuietLog::Note(const std::string& line) {
  const std::lock_guard lock(mutex_);
  const auto now = std::chrono::steady_clock::now();
  if (written_ && now - last_ < period_) {
    ++held_back_;
    return;
  }
  std::string text = "tq web: " + line;
  while (!text.empty() && text.back() == '\n') text.pop_back();
  if (held_back_ > 0)
    text += " (" + std::to_string(held_back_) + " more since the line before, not shown)";
  text += '\n';
  // One write: a line is never cut by another thread's.
  for (size_t done = 0; done < text.size();) {
    const ssize_t n = write(STDERR_FILENO, text.data() + done, text.size() - done);
    if (n <= 0) break;
    done += static_cast<size_t>(n);
  }
  written_ = true;
  last_ = now;
  held_back_ = 0;
}

}  // namespace tq
