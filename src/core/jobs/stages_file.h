// A stages file (`tq submit --stages FILE`, SPEC 13): the stages of one task as [[stages]]
// tables, read by the reader of job files' stages (stage_tables.h).
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "core/model/stage.h"
#include "core/model/status.h"

namespace tq {

/// Parses the text of stages file `path` (the name every message starts with): TOML whose only
/// top-level key is `stages`, written as [[stages]] tables, each read as a stage of a job file
/// (a `command` is run by /bin/sh -c: StageSpec.shell). Refuses, with kConfig, field the dotted
/// key and one line "<path>:<line>: <key>: <reason>" per error (at most kMaxFileErrors of
/// file_errors.h): syntax errors, other top-level keys, a file without stages, every refusal of
/// a stage table; and a text over kMaxJobFileBytes whole.
Result<std::vector<StageSpec>> ParseStagesFile(std::string_view text, const std::string& path);

}  // namespace tq
