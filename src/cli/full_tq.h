// tq-full: tq with the libraries tq itself does not load, cctz for cron times in any zone and
// toml++ for job and stages files (cli/full/full_runs.h). For what needs them, tq runs tq-full in
// its own place with its own arguments, so the answer, the exit code and the process are the same.
#pragma once

#include <string>
#include <vector>

#include "core/model/status.h"

namespace tq {

/// Keeps the process's arguments, as main got them, for RunFullTq.
void KeepArguments(char** argv);

/// Runs tq-full (beside tq in a build tree, else where it is installed) in this process's place
/// with the kept arguments. Returns only when it cannot, saying why (kInternal).
Status RunFullTq();

/// Runs the helper program `name` in this process's place: beside tq in a build tree, else at
/// `installed`, with `argv` (null-terminated). Returns only when it cannot, saying why
/// (kInternal, naming the path).
Status RunHelper(const std::string& name, const std::string& installed, char* const* argv);

}  // namespace tq
