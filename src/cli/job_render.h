// Rendering cron jobs for people: the `tq jobs` table, `tq jobs show`, and load errors.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "cli/job_page.h"
#include "core/model/clock.h"

namespace tq {

/// How far `t` is from `now`, short, in at most two units: "in 5m", "in 1h41m", "3h ago", "2d5h
/// ago", "now" (within a second).
std::string RelativeTime(WallMs t, WallMs now);
/// A job's RFC 3339 time as local time and relative to `now` ("14:30:00 (in 5m)"), "-" when "".
std::string JobTime(const std::string& rfc3339, WallMs now);
/// How a job's latest run stands: "succeeded", "failed (exit 1)", "failed (timeout)",
/// "running", "pending", ... ; "-" when it has none (`state` "").
std::string LastResult(const std::string& state, const std::string& reason,
                       std::optional<int64_t> exit_code);
/// LastResult of a job's JSON ("last_state", "last_reason", "last_exit_code").
std::string LastResult(const nlohmann::json& job);
/// The rows of the `tq jobs` table, the header first: NAME, SCHEDULE, ZONE, NEXT, LAST, RESULT.
/// The name of a job whose file failed to load ends with "*"; NEXT of a disabled job says so;
/// RESULT in its state's colour when `colour` (PaintState).
std::vector<std::vector<std::string>> JobRows(const std::vector<JobRow>& jobs, WallMs now,
                                              bool colour = false);
/// The rows of `tq jobs show`: every field of the job, one per row, and each of its stages on a
/// row of its own ("stage 2", "upload: 'rclone copy ...' (5 retries)"); the last result in its
/// state's colour when `colour`.
std::vector<std::vector<std::string>> JobShowRows(const nlohmann::json& job, WallMs now,
                                                  bool colour = false);
/// The load errors of a `jobs` or `reload` answer, one per line ("FILE:LINE: reason", then
/// whether the file's last good jobs stay in force or none are), with a
/// last line saying how many were left out of the answer, if any.
std::vector<std::string> LoadErrorLines(const nlohmann::json& answer);

}  // namespace tq
