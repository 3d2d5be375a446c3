// Reading a job file in tq (`tq jobs check`, `tq jobs install`): its bytes, bounded, with a
// refusal naming the file.
#pragma once

#include <string>

#include "core/model/status.h"

namespace tq {

/// The text of `path` ("-": standard input), at most kMaxJobFileBytes + 1 bytes (ParseJobFile
/// refuses a longer one); kInvalid (field "file") naming the path when it cannot be read.
Result<std::string> ReadJobFileText(const std::string& path);

}  // namespace tq
