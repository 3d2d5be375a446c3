// The caller's latest task: what `tq logs` and `tq wait` act on when given no id and no filter,
// as `tsp -c` and `tsp -w` do.
#pragma once

#include <string>

#include "core/model/status.h"
#include "core/model/task.h"

namespace tq {

/// The newest task (the highest id) the calling user owns (root too: only root's own), as a list
/// request to tqd on `socket` finds it; kNotFound, saying `verb` wants an id, when there is none.
Result<TaskId> LatestOwnTask(const std::string& socket, const std::string& verb);

}  // namespace tq
