// The one spelling of tq's own names (queues, jobs, stages): 1 to a limit of bytes of
// A-Z a-z 0-9 _ . -, safe in a path, a label, a log line and a metric.
#pragma once

#include <cstddef>
#include <string_view>

namespace tq {

/// Whether `name` is 1 to `max_bytes` bytes of [A-Za-z0-9_.-].
bool ValidNameText(std::string_view name, size_t max_bytes);

}  // namespace tq
