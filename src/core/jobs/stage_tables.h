// Stages written as TOML tables (SPEC 13): one reader for the `stages` of a job file's [[job]]
// and the [[stages]] of a stages file, every refusal naming the file, the line, the key and what
// is allowed. Used inside tq_jobs only (it speaks toml++).
#pragma once

#include <toml++/toml.h>

#include <string>
#include <vector>

#include "core/config/toml_check.h"
#include "core/jobs/file_errors.h"
#include "core/model/stage.h"

namespace tq {

/// The keys a stage table may have, as a refusal lists them.
inline constexpr const char* kStageKeys =
    "name, command, argv, timeout, retries, backoff, retry_on_exit, no_retry_on_exit";

/// Reads `v`, the value of key `key` (at `line`), as stage tables: an array of 1 to kMaxStages
/// tables, each with a unique `name` (ValidStageName), exactly one of `command` (a shell command
/// line, into StageSpec.shell) and `argv`, and optionally `timeout` (a duration, 0 for none) and
/// the retry keys of a job (job_values.h); the commands at most kMaxArgvBytes together. Adds
/// each refusal to `errors` (keys such as "stages[1].retries") and returns whether there was
/// none; `*out` is set only then.
bool ReadStageTables(const TomlChecker& ck, const std::string& key, int line, const toml::node& v,
                     FileErrors* errors, std::vector<StageSpec>* out);

}  // namespace tq
