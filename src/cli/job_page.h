// One page of the daemon's `jobs` answer read for the `tq jobs` table: the jobs are read event by
// event straight into rows, never into a JSON document, so 10,000 jobs list in a blink.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/model/status.h"

namespace tq {

/// What the `tq jobs` table shows of one job (the members of JobSummaryText it needs).
struct JobRow {
  std::string name;
  std::string schedule;
  std::string timezone;  ///< "" = the daemon's local zone
  std::string next;      ///< RFC 3339, "" when none
  std::string last_fired;
  std::string last_state;  ///< "" when the job has no run
  std::string last_reason;
  std::optional<int64_t> last_exit_code;
  bool enabled = true;
  bool disabled = false;
  bool from_last_good = false;
  bool overdue = false;  ///< its dead man's switch has fired
};

/// A `jobs` answer: its job rows, and every other member ("ok", "error", "errors",
/// "errors_left_out", "more") as JSON.
struct JobPage {
  std::vector<JobRow> jobs;
  nlohmann::json rest;
};

/// Reads the text of a `jobs` answer; kInternal when it is not JSON of that shape. A member of
/// a job that is absent, null or of another type leaves the row's default.
Result<JobPage> ReadJobPage(std::string_view text);

}  // namespace tq
