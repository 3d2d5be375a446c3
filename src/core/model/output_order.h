// The order in which a task wrote its standard output and standard error, as its supervisor
// kept it beside the two files (`tq logs --merged`): a line "o N" or "e N" each time the task
// switched away from a stream, N being how far that stream's file then was; "end" where the
// supervisor stopped keeping the order (a stream was cut at the output limit).
#pragma once

#include <cstdint>
#include <string_view>
#include <vector>

namespace tq {

/// A run of one stream's file, [begin, end) in bytes.
struct OutputSegment {
  bool stderr_stream = false;
  int64_t begin = 0, end = 0;
  bool operator==(const OutputSegment&) const = default;
};

/// The two files as one output in the order written: the runs the order file names, then the
/// rest. `complete`: the attempt is over, so the rest is the rest of stdout, then of stderr. While
/// it runs, only what is certain comes out: the runs named, then the stream written since the
/// last switch (nothing more while the other stream has grown past its run, or after "end"), so
/// that what a follower printed stays the start of what it will print. An order line it cannot
/// read counts as "end".
std::vector<OutputSegment> MergedSegments(std::string_view order, int64_t stdout_size,
                                          int64_t stderr_size, bool complete);

/// The bytes all of `segments` hold.
int64_t SegmentsSize(const std::vector<OutputSegment>& segments);

}  // namespace tq
