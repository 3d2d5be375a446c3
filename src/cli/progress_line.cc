#include "cli/progress_line.h"

#include <algorithm>
#include <cstdio>
#include <vector>

namespace tq {

namespace {
// The bar's inner width: at least this many columns, or no bar; at most the other.
constexpr size_t kMinBar = 10;
constexpr size_t kMaxBar = 40;
// Between the pieces of the line.
constexpr const char* kGap = "  ";

// The pieces after the bar, in order, and the order in which they are dropped when the line
// does not fit: elapsed first, the done count never.
struct Piece {
  std::string text;
  int drop_rank;  // dropped lowest first; 0 is never dropped
};

// The pieces' text, separated by the gap.
std::string Joined(const std::vector<Piece>& pieces) {
  std::string out;
  for (const Piece& p : pieces) out += (out.empty() ? "" : kGap) + p.text;
  return out;
}

// Tasks per second: one decimal below 100; "?/s" before any time has passed.
std::string RateText(const WaitCounts& c) {
  const auto rate = TasksPerSecond(c);
  if (!rate) return "?/s";
  char buf[32];
  std::snprintf(buf, sizeof buf, *rate < 100 ? "%.1f/s" : "%.0f/s", *rate);
  return buf;
}

// The pieces of the line: the done count as wide as the total (so it stays in place), the
// failed count, the rate, the elapsed time and the estimate.
std::vector<Piece> Pieces(const WaitCounts& c, const std::string& rate, const std::string& elapsed,
                          const std::string& eta) {
  const std::string total = std::to_string(c.total);
  std::string done = std::to_string(c.done);
  if (done.size() < total.size()) done.insert(0, total.size() - done.size(), ' ');
  return {
      {done + "/" + total + " done", 0},
      {std::to_string(c.failed) + " failed", 4},
      {rate, 2},
      {"elapsed " + elapsed, 1},
      {"ETA " + eta, 3},
  };
}

// "[####......]" with `inner` columns between the brackets.
std::string Bar(const WaitCounts& c, size_t inner) {
  const size_t filled = c.total == 0 ? inner : std::min(inner, c.done * inner / c.total);
  return "[" + std::string(filled, '#') + std::string(inner - filled, '.') + "]";
}
}  // namespace

std::optional<double> TasksPerSecond(const WaitCounts& c) {
  if (c.elapsed_ms <= 0) return std::nullopt;
  return static_cast<double>(c.done) * 1000.0 / static_cast<double>(c.elapsed_ms);
}

std::optional<int64_t> EtaMs(const WaitCounts& c) {
  if (c.done >= c.total) return 0;
  if (c.done == 0 || c.elapsed_ms <= 0) return std::nullopt;
  const auto left = static_cast<int64_t>(c.total - c.done);
  return left * c.elapsed_ms / static_cast<int64_t>(c.done);
}

std::string ClockDuration(int64_t ms) {
  const int64_t s = std::max<int64_t>(0, ms) / 1000;
  char buf[32];
  if (s < 3600) {
    std::snprintf(buf, sizeof buf, "%lld:%02lld", static_cast<long long>(s / 60),
                  static_cast<long long>(s % 60));
  } else {
    std::snprintf(buf, sizeof buf, "%lld:%02lld:%02lld", static_cast<long long>(s / 3600),
                  static_cast<long long>(s / 60 % 60), static_cast<long long>(s % 60));
  }
  return buf;
}

std::string ProgressLine(const WaitCounts& c, size_t width) {
  const auto eta = EtaMs(c);
  const std::vector<Piece> pieces = Pieces(c, RateText(c), ClockDuration(c.elapsed_ms),
                                           eta ? ClockDuration(*eta) : std::string("?"));
  std::string text = Joined(pieces);
  // The bar keeps its size as the numbers change: it leaves room for wide ones.
  const WaitCounts widest{.done = c.total, .failed = c.total, .total = c.total};
  const size_t room =
      std::max(text.size(), Joined(Pieces(widest, "999.9/s", "59:59", "59:59")).size());
  const size_t gap = std::string(kGap).size();
  if (room + gap + kMinBar + 2 <= width) {
    const size_t inner = std::min(kMaxBar, width - room - gap - 2);
    return Bar(c, inner) + kGap + text;
  }
  std::vector<Piece> kept = pieces;
  for (int rank = 1; rank <= 4 && text.size() > width; ++rank) {
    std::erase_if(kept, [rank](const Piece& p) { return p.drop_rank == rank; });
    text = Joined(kept);
  }
  return text.substr(0, width);
}

}  // namespace tq
