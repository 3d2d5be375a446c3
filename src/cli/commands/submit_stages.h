// tq submit's command words (SPEC 13): the task's own command (words, or --shell STRING), or its
// stages, each `--stage NAME -- COMMAND [ARG...]` or `--stage NAME --shell STRING`, or all of
// them from `--stages FILE`. Refused here, naming the flag, before anything is sent.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "core/model/stage.h"
#include "core/model/status.h"

namespace tq {

/// One --stage NAME or --shell STRING that the option parser met before the task's command, in
/// the order given.
struct CommandFlag {
  bool stage = false;  ///< --stage NAME; else --shell STRING
  std::string value;
};

/// What a submit runs: its own command (argv, or shell run by /bin/sh -c), or its stages.
struct SubmitCommand {
  std::vector<std::string> argv;
  std::optional<std::string> shell;
  std::vector<StageSpec> stages;
};

/// Reads the command of a submit from `flags` and `words` (GlobalOptions::command: the words from
/// the first that is not an option, or after the first `--`). Without a --stage among `flags`,
/// `words` are the task's argv and a --shell its shell (given at most once). With one, the task
/// has stages: `flags` must start with --stage; each --stage NAME starts a stage whose command is
/// the --shell after it, or else the words after the `--` that follows it, up to the next literal
/// `--stage` (`words` go on with the `--stage NAME`s after the first `--`, each followed by `--`
/// and words, or by --shell STRING). Refuses (kInvalid, naming --stage or --shell): a name that
/// is not ValidStageName, a name given twice, a stage without a command or with two, anything
/// else after a --stage NAME, and --shell before the first --stage.
Result<SubmitCommand> ReadSubmitCommand(const std::vector<CommandFlag>& flags,
                                        const std::vector<std::string>& words);

/// The stages of stages file `path` ("-": standard input), read by ParseStagesFile
/// (core/jobs/stages_file.h); a file that cannot be read or whose stages are refused is
/// kInvalid (field "--stages"), each error a line "FILE:LINE: KEY: REASON".
Result<std::vector<StageSpec>> ReadStagesFile(const std::string& path);

}  // namespace tq
