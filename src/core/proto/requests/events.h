// The "events" request: a stream of task state changes (SPEC 7a).
#pragma once

#include <nlohmann/json.hpp>

#include "core/model/status.h"

namespace tq {

/// Stream: with `follow`, one {"event": {...}} frame per state change of a task the caller may
/// see, from now on, for as long as the connection stays open (no end frame). Without it the
/// answer is {"end": true} at once: no past events are kept.
struct EventsRequest {
  bool follow = false;
};
/// An events request's body read from its frame, every field checked.
Result<EventsRequest> DecodeEvents(const nlohmann::json& body);
/// The body of an events request's frame.
nlohmann::json EncodeEvents(const EventsRequest& request);

}  // namespace tq
