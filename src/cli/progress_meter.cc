#include "cli/progress_meter.h"

#include <sys/ioctl.h>
#include <unistd.h>

#include <algorithm>

namespace tq {

namespace {
// Redraws at most this often while tasks end, and this often while none does (for the clock).
constexpr MonoMs kMinRedrawMs = 100;
constexpr MonoMs kIdleRedrawMs = 1000;
}  // namespace

ProgressMeter::ProgressMeter(FILE* out, std::function<size_t()> columns, size_t total, MonoMs start)
    : out_(out), columns_(std::move(columns)), start_(start) {
  counts_.total = total;
}

ProgressMeter::~ProgressMeter() {
  Clear();
}

void ProgressMeter::Ended(bool failed, MonoMs now) {
  ++counts_.done;
  if (failed) ++counts_.failed;
  dirty_ = true;
  Tick(now);
}

int ProgressMeter::MsUntilDue(MonoMs now) const {
  if (out_ == nullptr) return -1;
  if (!drawn_) return 0;
  const MonoMs due = last_draw_ + (dirty_ ? kMinRedrawMs : kIdleRedrawMs);
  return static_cast<int>(std::max<MonoMs>(0, due - now));
}

void ProgressMeter::Tick(MonoMs now) {
  if (MsUntilDue(now) == 0) Draw(now);
}

void ProgressMeter::Draw(MonoMs now) {
  counts_.elapsed_ms = now - start_;
  const size_t columns = columns_();
  const std::string line = ProgressLine(counts_, columns > 0 ? columns - 1 : 0);
  std::fprintf(out_, "\r%s\033[K", line.c_str());
  std::fflush(out_);
  drawn_ = true;
  dirty_ = false;
  last_draw_ = now;
}

void ProgressMeter::Clear() {
  if (out_ != nullptr && drawn_) {
    std::fputs("\r\033[K", out_);
    std::fflush(out_);
  }
  out_ = nullptr;
}

size_t StderrColumns() {
  winsize ws{};
  return ioctl(STDERR_FILENO, TIOCGWINSZ, &ws) == 0 && ws.ws_col > 0 ? ws.ws_col : 80;
}

}  // namespace tq
