// tq submit --batch: many tasks from standard input, checked first, sent over one connection.
#pragma once

#include <istream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "cli/commands/commands.h"
#include "core/model/status.h"
#include "core/proto/protocol.h"

namespace tq {

/// How standard input lists the tasks of a batch.
enum class BatchFormat {
  kShellLines,  ///< one shell command per line (empty lines are skipped)
  kNulArgv,     ///< NUL-terminated arguments; an empty argument ends a task's argv
  kJsonLines,   ///< one JSON object of submit fields per line
};

/// The tasks of a batch, and where each came from for error messages.
struct ParsedBatch {
  std::vector<nlohmann::json> tasks;  ///< each an object of submit fields
  std::vector<std::string> where;     ///< "line 7", "task 3"
};

/// Splits a batch's input into tasks. End of input ends the last task (a last line without its
/// newline, the last argv of -0 without its empty terminator). A --json-lines line that is not an
/// object, or names a field a submit does not have, is refused naming the line and the field.
Result<ParsedBatch> ParseBatch(const std::string& input, BatchFormat format);

/// Reads every task from `in`, checks them all against `common` (a bad one is reported with its
/// line or record number and nothing is submitted), submits them in large transactions over one
/// connection and prints one id per line ({"id": N} with --json). Returns the exit code.
int SubmitBatch(const SubmitRequest& common, BatchFormat format, std::istream& in,
                const GlobalOptions& g);

}  // namespace tq
