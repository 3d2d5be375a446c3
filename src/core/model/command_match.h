// Finding tasks by the text of their command (tq list --command, the console's text filter).
#pragma once

#include <string_view>

#include "core/model/task.h"

namespace tq {

/// True when `needle` occurs in the command of `spec`, ignoring ASCII case: in its argv joined
/// by spaces, its shell text, or any stage's (name, argv or shell). An empty needle matches.
bool CommandContains(const TaskSpec& spec, std::string_view needle);

}  // namespace tq
