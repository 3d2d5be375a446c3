// The Prometheus text exposition (format 0.0.4) of a metrics snapshot: what `tq stats
// --prometheus` prints and what tqd writes to metrics_textfile for node_exporter.
#pragma once

#include <string>

#include "core/metrics/metrics.h"

namespace tq {

/// Every metric of `s` with its HELP and TYPE lines. Each queue that holds a task gets a
/// tq_tasks sample for every state (0 included), so rates over states need no absent series.
std::string RenderPrometheus(const MetricsSnapshot& s);

/// `value` as a label value inside double quotes: backslash, quote and newline escaped.
std::string PrometheusLabel(const std::string& value);

}  // namespace tq
