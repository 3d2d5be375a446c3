// The "reload" request: `tq reload`, tqd.toml and the job files read again (as SIGHUP does).
#pragma once

#include <nlohmann/json.hpp>

#include "core/model/status.h"

namespace tq {

/// Re-reads tqd.toml, then the job files; a job file that fails keeps its last good jobs, a
/// tqd.toml that fails is refused (field "config", "FILE:LINE: key: reason") and nothing
/// changes. Admin only. Response: the ReloadReport as ReloadReportToJson shows it: {"files",
/// "jobs", "added", "removed", "changed", "errors"}, and "config": {"changed": [keys in force
/// now], "needs_restart": [keys read but kept as they are until tqd restarts]}.
struct ReloadRequest {};
/// A reload request's body read from its frame, every field checked.
Result<ReloadRequest> DecodeReload(const nlohmann::json& body);
/// The body of a reload request's frame.
nlohmann::json EncodeReload(const ReloadRequest& request);

}  // namespace tq
