#include "cli/progress_meter.h"

#include <cstdlib>
#include <string>

#include <doctest/doctest.h>

namespace tq {
namespace {

// What a meter wrote, through a memory stream (each draw flushes it).
class Captured {
 public:
  Captured() : file_(open_memstream(&buf_, &size_)) { REQUIRE(file_ != nullptr); }
  ~Captured() {
    std::fclose(file_);
    std::free(buf_);
  }
  FILE* file() { return file_; }
  std::string text() {
    std::fflush(file_);
    return std::string(buf_, size_);
  }

 private:
  char* buf_ = nullptr;
  size_t size_ = 0;
  FILE* file_;
};

size_t Columns80() {
  return 80;
}

TEST_CASE("a meter without an output draws nothing and never asks to be woken") {
  ProgressMeter meter(nullptr, Columns80, 3, 1000);
  CHECK(meter.MsUntilDue(1000) == -1);
  meter.Ended(true, 1000);
  meter.Tick(5000);
  CHECK(meter.MsUntilDue(5000) == -1);
}

TEST_CASE("a meter draws at once, at most every 100 ms while tasks end, every second idle") {
  Captured out;
  {
    ProgressMeter meter(out.file(), Columns80, 3, 1000);
    CHECK(meter.MsUntilDue(1000) == 0);
    meter.Tick(1000);
    const std::string first = out.text();
    CHECK(first == "\r" + ProgressLine({.done = 0, .failed = 0, .total = 3, .elapsed_ms = 0}, 79) +
                       "\033[K");
    CHECK(meter.MsUntilDue(1000) == 1000);  // nothing changed: the clock's next second
    meter.Ended(false, 1040);               // too soon after the last draw: later
    CHECK(out.text() == first);
    CHECK(meter.MsUntilDue(1040) == 60);
    meter.Tick(1099);
    CHECK(out.text() == first);
    meter.Tick(1100);
    CHECK(out.text().substr(first.size()) ==
          "\r" + ProgressLine({.done = 1, .failed = 0, .total = 3, .elapsed_ms = 100}, 79) +
              "\033[K");
    const size_t drawn = out.text().size();
    meter.Ended(true, 1500);  // 400 ms after the last draw: at once
    CHECK(out.text().find("2/3 done  1 failed", drawn) != std::string::npos);
    CHECK(meter.MsUntilDue(1600) == 900);
  }
  // Destroyed: the line is erased and the cursor back at its start.
  const std::string all = out.text();
  CHECK(all.size() >= 4);
  CHECK(all.substr(all.size() - 4) == "\r\033[K");
}

TEST_CASE("a meter's line stays short of the terminal's last column") {
  Captured out;
  size_t columns = 40;
  ProgressMeter meter(
      out.file(), [&columns] { return columns; }, 2, 0);
  meter.Tick(0);
  CHECK(out.text() == "\r" + ProgressLine({.total = 2}, 39) + "\033[K");
  columns = 1;
  meter.Ended(false, 5000);
  CHECK(out.text().substr(out.text().size() - 4) == "\r\033[K");  // an empty line: 0 columns
}

TEST_CASE("a meter that never drew clears nothing, and draws nothing after Clear") {
  Captured out;
  {
    ProgressMeter meter(out.file(), Columns80, 2, 0);
    meter.Clear();
    meter.Tick(0);
    CHECK(meter.MsUntilDue(0) == -1);
  }
  CHECK(out.text() == "");
}

}  // namespace
}  // namespace tq
