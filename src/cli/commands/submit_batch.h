// tq submit --batch: many tasks from standard input, checked first, sent over one connection.
#pragma once

#include <istream>

#include "cli/commands/commands.h"
#include "core/protocol.h"

namespace tq {

/// How standard input lists the tasks of a batch.
enum class BatchFormat {
  kShellLines,  ///< one shell command per line (empty lines are skipped)
  kNulArgv,     ///< NUL-terminated arguments; an empty argument ends a task's argv
  kJsonLines,   ///< one JSON object of submit fields per line
};

/// Reads every task from `in`, checks them all against `common` (a bad one is reported with its
/// line or record number and nothing is submitted), submits them in large transactions over one
/// connection and prints one id per line. Returns the exit code.
int SubmitBatch(const SubmitRequest& common, BatchFormat format, std::istream& in,
                const GlobalOptions& g);

}  // namespace tq
