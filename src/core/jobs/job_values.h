// The values job files and stage tables share (SPEC 7, 13): keys as messages show them, tables
// in file order, text, a command line, an argv and the retry settings, each refusal in
// TomlChecker's shape "<source>:<line>: <key>: <reason>". Used inside tq_jobs only.
#pragma once

#include <toml++/toml.h>

#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "core/config/toml_check.h"
#include "core/model/retry_overrides.h"
#include "core/model/status.h"

namespace tq {

/// The retry keys of a job and of a stage, as a refusal lists them.
inline constexpr const char* kRetryKeys = "retries, backoff, retry_on_exit, no_retry_on_exit";

/// A key as a message shows it: short bare TOML keys as written, any other quoted (and cut).
std::string KeyText(std::string_view k);

/// The entries of `t` in the order of the file (toml++ keeps tables sorted by key), so the first
/// error reported is the first in the file and env keeps the order it was written in.
std::vector<std::pair<const toml::key*, const toml::node*>> InFileOrder(const toml::table& t);

/// A string without NUL bytes, at most `max` bytes, into `*out`; `what` says what is allowed.
Status ReadText(const TomlChecker& ck, const std::string& key, int line, const toml::node& v,
                size_t max, const char* what, std::string* out);

/// A shell command line into `*out`: a string that is not blank, without NUL bytes, within what
/// execve takes for one string.
Status ReadCommandLine(const TomlChecker& ck, const std::string& key, int line, const toml::node& v,
                       std::string* out);

/// An argv into `*out`: a non-empty array of strings, the program not "", within the limits of
/// a task's argv (core/model/limits.h).
Status ReadArgv(const TomlChecker& ck, const std::string& key, int line, const toml::node& v,
                std::vector<std::string>* out);

/// Whether `name` is one of kRetryKeys.
bool IsRetryKey(std::string_view name);

/// Retry key `name` (IsRetryKey) into the matching field of `*r`: retries 0 to 1000; backoff a
/// kind ("exponential") or a table { kind, base, max, jitter } with any of its parts (those
/// given replace the ones in `*r`); retry_on_exit and no_retry_on_exit arrays of exit codes.
Status ReadRetryKey(const TomlChecker& ck, std::string_view name, const std::string& key, int line,
                    const toml::node& v, RetryOverrides* r);

}  // namespace tq
