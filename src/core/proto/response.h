// The response envelope of SPEC 9: {"ok": true, ...} or {"ok": false, "error": {...}}.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/model/status.h"

namespace tq {

/// {"ok": true} plus the members of `body`.
nlohmann::json OkResponse(nlohmann::json body = nlohmann::json::object());
/// `message` as the wire carries it: compact JSON, bytes that are not UTF-8 replaced.
std::string WireText(const nlohmann::json& message);
/// The wire text of OkResponse(body) with one more member, `key`: the array of `items`, each
/// already WireText. A long list is encoded once, item by item, never as one big document.
std::string OkResponseText(nlohmann::json body, std::string_view key,
                           const std::vector<std::string>& items);
/// {"ok": false, "error": {"code", "field", "message"}}, with "transient": true when trying
/// again may help (a store fault of that kind: a lost connection, a restarting server).
nlohmann::json ErrorResponse(const Status& status);
/// The Status a response carries (ok, or its error, a transient fault when it says so).
Status ResponseStatus(const nlohmann::json& response);

}  // namespace tq
