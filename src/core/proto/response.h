// The response envelope of SPEC 9: {"ok": true, ...} or {"ok": false, "error": {...}}.
#pragma once

#include <nlohmann/json.hpp>

#include "core/model/status.h"

namespace tq {

/// {"ok": true} plus the members of `body`.
nlohmann::json OkResponse(nlohmann::json body = nlohmann::json::object());
/// {"ok": false, "error": {"code", "field", "message"}}.
nlohmann::json ErrorResponse(const Status& status);
/// The Status a response carries (ok, or its error).
Status ResponseStatus(const nlohmann::json& response);

}  // namespace tq
