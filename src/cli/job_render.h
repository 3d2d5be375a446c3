// Rendering cron jobs for people: the `tq jobs` table, `tq jobs show`, and load errors.
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/model/clock.h"

namespace tq {

/// How far `t` is from `now`, short: "in 5m", "3h ago", "now" (within a second).
std::string RelativeTime(WallMs t, WallMs now);
/// A time of a job JSON as local time and relative to `now` ("14:30:00 (in 5m)"), "-" when null.
std::string JobTime(const nlohmann::json& rfc3339, WallMs now);
/// How the job's latest run stands: "succeeded", "failed (exit 1)", "failed (timeout)",
/// "running", "pending", ... ; "-" when it has none.
std::string LastResult(const nlohmann::json& job);
/// The rows of the `tq jobs` table, the header first: NAME, SCHEDULE, ZONE, NEXT, LAST, RESULT.
/// The name of a job whose file failed to load ends with "*"; NEXT of a disabled job says so.
std::vector<std::vector<std::string>> JobRows(const nlohmann::json& jobs, WallMs now);
/// The rows of `tq jobs show`: every field of the job, one per row.
std::vector<std::vector<std::string>> JobShowRows(const nlohmann::json& job, WallMs now);
/// The load errors of a `jobs` or `reload` answer, one per line ("FILE:LINE: reason"), with a
/// last line saying how many were left out of the answer, if any.
std::vector<std::string> LoadErrorLines(const nlohmann::json& answer);

}  // namespace tq
