// The "logs" request: a chunk of one attempt's output.
#pragma once

#include <cstdint>

#include <nlohmann/json.hpp>

#include "core/model/status.h"
#include "core/model/task.h"

namespace tq {

/// A chunk of one attempt's output from `offset`. Response: {"data", "offset", "eof",
/// "attempt", "state"}; "eof" once that attempt has ended and everything was sent.
struct LogsRequest {
  TaskId id = 0;
  bool stderr_stream = false;
  int64_t offset = 0;
  int attempt = 0;  ///< 1-based attempt number; 0: the latest (logs -f then follows new ones)
};
/// A logs request's body read from its frame, every field checked.
Result<LogsRequest> DecodeLogs(const nlohmann::json& body);
/// The body of a logs request's frame.
nlohmann::json EncodeLogs(const LogsRequest& request);

}  // namespace tq
