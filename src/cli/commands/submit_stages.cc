#include "cli/commands/submit_stages.h"

#include <algorithm>

#include "cli/arg_checks.h"
#include "core/model/quote.h"

namespace tq {

namespace {

// How a stage's command is given, for refusals.
std::string StageUsage(const std::string& name) {
  return "--stage " + name + " -- COMMAND [ARG...], or --stage " + name + " --shell STRING";
}

// Whether `word` is option `flag`, alone or as "FLAG=VALUE" (then `*value` is VALUE).
bool IsStageWord(const std::string& word, const std::string& flag,
                 std::optional<std::string>* value) {
  if (word == flag) {
    value->reset();
    return true;
  }
  if (word.rfind(flag + "=", 0) != 0) return false;
  *value = word.substr(flag.size() + 1);
  return true;
}

// Reads the stage words of a submit: the --stage and --shell flags, then the words after them.
class StageWordReader {
 public:
  explicit StageWordReader(const std::vector<std::string>& words) : words_(words) {}

  // The stages `flags` (starting with a --stage) and the words give.
  Result<std::vector<StageSpec>> Read(const std::vector<CommandFlag>& flags) {
    for (const CommandFlag& f : flags) {
      Status st = f.stage ? Start(f.value) : SetShell(f.value);
      if (!st.ok()) return st;
    }
    // The words first belong to the last stage of the flags, unless it has its --shell.
    if (!stages_.back().shell) {
      TakeArgv();
    } else if (at_ < words_.size() && !IsStageWord(words_[at_], "--stage", &value_)) {
      return Both();
    }
    while (at_ < words_.size()) {
      IsStageWord(words_[at_++], "--stage", &value_);
      auto name = Value("--stage");
      if (!name.ok()) return name.status();
      if (Status st = Start(*name); !st.ok()) return st;
      if (Status st = Command(); !st.ok()) return st;
    }
    for (const StageSpec& s : stages_)
      if (s.argv.empty() && !s.shell)
        return Status::Invalid("--stage", "--stage " + s.name + ": a command is required (" +
                                              StageUsage(s.name) + ")");
    return std::move(stages_);
  }

 private:
  // Starts stage `name`.
  Status Start(const std::string& name) {
    if (!ValidStageName(name))
      return Status::Invalid(
          "--stage", "--stage: " + Quote(name) + " is not a stage name (" + kStageNameHelp + ")");
    for (const StageSpec& s : stages_)
      if (s.name == name)
        return Status::Invalid("--stage", "--stage: " + Quote(name) +
                                              " names two stages (names are unique in a task)");
    stages_.emplace_back();
    stages_.back().name = name;
    return Status::Ok();
  }

  // Gives the current stage the --shell command `text`.
  Status SetShell(const std::string& text) {
    if (stages_.back().shell || !stages_.back().argv.empty()) return Both();
    if (std::string problem = TextValueProblem(text); !problem.empty())
      return Status::Invalid("--shell", "--shell: " + problem);
    stages_.back().shell = text;
    return Status::Ok();
  }

  // The command after a --stage NAME of the words: `--` and words, or --shell STRING.
  Status Command() {
    const std::string& name = stages_.back().name;
    if (at_ == words_.size()) return Status::Ok();  // no command: refused at the end
    const std::string& word = words_[at_++];
    if (word == "--") {
      TakeArgv();
      return Status::Ok();
    }
    if (IsStageWord(word, "--shell", &value_)) {
      auto text = Value("--shell");
      if (!text.ok()) return text.status();
      if (Status st = SetShell(*text); !st.ok()) return st;
      if (at_ < words_.size() && !IsStageWord(words_[at_], "--stage", &value_)) return Both();
      return Status::Ok();
    }
    return Status::Invalid("--stage", "--stage " + name + ": its command goes after \"--\" (" +
                                          StageUsage(name) + "), not before " + Quote(word));
  }

  // The words up to the next --stage, as the current stage's argv.
  void TakeArgv() {
    const auto end =
        std::find_if(words_.begin() + static_cast<std::ptrdiff_t>(at_), words_.end(),
                     [&](const std::string& w) { return IsStageWord(w, "--stage", &value_); });
    stages_.back().argv.assign(words_.begin() + static_cast<std::ptrdiff_t>(at_), end);
    at_ = static_cast<size_t>(end - words_.begin());
  }

  // The value of the option word just read: after its "=", or the next word.
  Result<std::string> Value(const std::string& flag) {
    if (value_) return *value_;
    if (at_ == words_.size()) return Status::Invalid(flag, flag + ": a value is required");
    return words_[at_++];
  }

  // The refusal of a stage given two commands.
  Status Both() const {
    const std::string& name = stages_.back().name;
    return Status::Invalid("--stage", "--stage " + name +
                                          ": give either a command after -- or --shell STRING, "
                                          "not both (" +
                                          StageUsage(name) + ")");
  }

  const std::vector<std::string>& words_;
  size_t at_ = 0;
  std::optional<std::string> value_;  // the "=VALUE" of the option word last matched
  std::vector<StageSpec> stages_;
};

}  // namespace

Result<SubmitCommand> ReadSubmitCommand(const std::vector<CommandFlag>& flags,
                                        const std::vector<std::string>& words) {
  SubmitCommand out;
  const auto first_stage =
      std::find_if(flags.begin(), flags.end(), [](const CommandFlag& f) { return f.stage; });
  if (first_stage == flags.end()) {
    for (const CommandFlag& f : flags) {
      if (out.shell)
        return Status::Invalid("--shell",
                               "--shell: given twice (give one command; each stage of a task with "
                               "stages takes its own: --stage NAME --shell STRING)");
      out.shell = f.value;
    }
    out.argv = words;
    return out;
  }
  if (first_stage != flags.begin())
    return Status::Invalid("--shell",
                           "--shell: given before the first --stage, it would be the task's own "
                           "command, but a task with stages runs only its stages' commands (give "
                           "--shell after the --stage NAME it belongs to)");
  auto stages = StageWordReader(words).Read(flags);
  if (!stages.ok()) return stages.status();
  out.stages = std::move(*stages);
  return out;
}

}  // namespace tq
