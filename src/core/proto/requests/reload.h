// The "reload" request: `tq reload`, the job files read again (as SIGHUP does).
#pragma once

#include <nlohmann/json.hpp>

#include "core/model/status.h"

namespace tq {

/// Re-reads the job files; a file that fails keeps its last good jobs. Admin only. Response:
/// the ReloadReport as ReloadReportToJson shows it: {"files", "jobs", "added", "removed",
/// "changed", "errors"}.
struct ReloadRequest {};
/// A reload request's body read from its frame, every field checked.
Result<ReloadRequest> DecodeReload(const nlohmann::json& body);
/// The body of a reload request's frame.
nlohmann::json EncodeReload(const ReloadRequest& request);

}  // namespace tq
