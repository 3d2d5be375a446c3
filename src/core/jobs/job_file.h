// Reading a job file (`jobs.d/*.toml`, SPEC 7): TOML with a `[defaults]` table and `[[job]]`
// entries, every key checked, every refusal naming the file, the line, the key and the reason.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "core/jobs/job.h"
#include "core/model/status.h"

namespace tq {

/// The largest job file tqd reads: far above any real file, small enough to parse at once.
constexpr size_t kMaxJobFileBytes = 4 * 1024 * 1024;

/// The jobs of one file, in the order they appear.
struct JobFile {
  std::string path;
  std::vector<JobDef> jobs;
};

/// Parses and checks the text of job file `path` (the name every message starts with). Refuses,
/// with kConfig, field the dotted key and message "<path>:<line>: <key>: <reason>" (quoting the
/// value and saying what is allowed): TOML syntax errors, unknown keys (in `[defaults]`, `[[job]]`
/// and inline tables), wrong types, values out of range, a schedule that never fires, an unknown
/// time zone, a job with none or more than one of `command`, `argv` and `stages` (stage_tables.h
/// says what each stage may be; `stages` is no default), and two jobs of the same name in the
/// file. Every error found is returned, one line each in file order (up to
/// kMaxFileErrors of file_errors.h); a job's whole-job checks are made when its keys are good.
Result<JobFile> ParseJobFile(std::string_view text, const std::string& path);

}  // namespace tq
