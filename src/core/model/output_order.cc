#include "core/model/output_order.h"

#include <algorithm>
#include <charconv>

namespace tq {

namespace {

// One line of an order file: which stream the task switched away from and where its file was.
struct Switch {
  bool stderr_stream = false;
  int64_t at = 0;
};

// Reads "o N" or "e N"; false for anything else ("end" included).
bool ReadSwitch(std::string_view line, Switch& out) {
  if (line.size() < 3 || (line[0] != 'o' && line[0] != 'e') || line[1] != ' ') return false;
  const char* first = line.data() + 2;
  const char* last = line.data() + line.size();
  auto [ptr, ec] = std::from_chars(first, last, out.at);
  out.stderr_stream = line[0] == 'e';
  return ec == std::errc() && ptr == last && out.at >= 0;
}

}  // namespace

std::vector<OutputSegment> MergedSegments(std::string_view order, int64_t stdout_size,
                                          int64_t stderr_size, bool complete) {
  std::vector<OutputSegment> segments;
  int64_t pos[2] = {0, 0};
  const int64_t size[2] = {stdout_size, stderr_size};
  auto add = [&](bool err, int64_t end) {
    end = std::min(end, size[err]);
    if (end > pos[err]) segments.push_back({err, pos[err], end});
    pos[err] = std::max(pos[err], end);
  };
  bool ended = false, any = false, last_err = false;
  while (!order.empty()) {
    const size_t nl = order.find('\n');
    if (nl == std::string_view::npos) break;  // a line still being written
    Switch s;
    if (!ReadSwitch(order.substr(0, nl), s)) {
      ended = true;
      break;
    }
    add(s.stderr_stream, s.at);
    any = true;
    last_err = s.stderr_stream;
    order.remove_prefix(nl + 1);
  }
  if (complete) {
    add(false, stdout_size);
    add(true, stderr_size);
  } else if (!ended) {
    // Since the last switch the task wrote to the other stream only, unless the stream it left
    // has grown (a switch back not yet read); with no switch yet, to the one that has bytes.
    const bool current = any ? !last_err : stdout_size == 0;
    if (size[!current] <= pos[!current]) add(current, size[current]);
  }
  return segments;
}

int64_t SegmentsSize(const std::vector<OutputSegment>& segments) {
  int64_t total = 0;
  for (const OutputSegment& s : segments) total += s.end - s.begin;
  return total;
}

}  // namespace tq
