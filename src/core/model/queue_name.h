// Queue names and references: "builds", or "alice/builds" for a queue of alice's own.
#pragma once

#include <string>
#include <string_view>

#include "core/model/status.h"

namespace tq {

/// Whether a queue name is acceptable: 1 to 64 characters from [A-Za-z0-9_.-].
bool ValidQueueName(std::string_view name);
/// Whether `ref` names a queue a task may use: a queue name (ValidQueueName), or USER/NAME for
/// a queue of USER's own (USER passes ValidAccountName).
bool ValidQueueRef(std::string_view ref);
/// The user whose own queue `queue` is ("alice" for "alice/builds"); "" for any other queue.
std::string_view QueueUser(std::string_view queue);
/// The refusal of a queue reference that is not one, naming `field` and what is allowed.
Status QueueRefRefused(const std::string& field, const std::string& ref);

}  // namespace tq
