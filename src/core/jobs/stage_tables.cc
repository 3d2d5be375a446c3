#include "core/jobs/stage_tables.h"

#include <algorithm>
#include <map>

#include "core/jobs/job_values.h"
#include "core/model/limits.h"
#include "core/model/quote.h"

namespace tq {

namespace {

constexpr const char* kStagesHelp =
    "use an array of tables, each with a name and a command: [{ name = \"dump\", command = "
    "\"...\" }, ...]";

// One stage table as its keys build it up, with the lines of the keys that matter later.
struct StageDraft {
  StageSpec stage;
  int name_line = 0;
  int command_line = 0;
  int argv_line = 0;
};

// Applies key `name` (shown as `key`, at `line`) of a stage table to `d`.
Status ApplyStageKey(const TomlChecker& ck, std::string_view name, const std::string& key, int line,
                     const toml::node& v, StageDraft* d) {
  StageSpec& s = d->stage;
  if (name == "name") {
    const std::string help = std::string("use ") + kStageNameHelp;
    std::string text;
    Status st = ReadText(ck, key, line, v, kMaxStageNameBytes, help.c_str(), &text);
    if (!st.ok()) return st;
    if (!ValidStageName(text))
      return ck.Error(key, line, DescribeToml(v) + " is not a stage name (" + help + ")");
    s.name = text;
    d->name_line = line;
    return Status::Ok();
  }
  if (name == "command") {
    d->command_line = line;
    std::string text;
    Status st = ReadCommandLine(ck, key, line, v, &text);
    if (st.ok()) s.shell = std::move(text);
    return st;
  }
  if (name == "argv") {
    d->argv_line = line;
    return ReadArgv(ck, key, line, v, &s.argv);
  }
  if (name == "timeout") {
    int64_t ms = 0;
    Status st = ck.Duration(key, line, v, &ms);
    if (st.ok()) s.timeout_ms = ms;
    return st;
  }
  if (IsRetryKey(name)) return ReadRetryKey(ck, name, key, line, v, &s.retry);
  return ck.Error(key, line, std::string("unknown key (allowed in a stage: ") + kStageKeys + ")");
}

// What only the whole stage table can tell: a name and exactly one command.
Status FinishStage(const TomlChecker& ck, const std::string& prefix, int header,
                   const StageDraft& d) {
  if (d.command_line > 0 && d.argv_line > 0)
    return ck.Error(prefix + ".argv", std::max(d.command_line, d.argv_line),
                    "a stage runs either command (by the shell) or argv (directly), not both");
  if (d.stage.name.empty())
    return ck.Error(prefix + ".name", header,
                    std::string("a stage needs a name (use ") + kStageNameHelp + ")");
  if (d.command_line == 0 && d.argv_line == 0)
    return ck.Error(prefix + ".command", header,
                    "stage " + Quote(d.stage.name) +
                        " needs a command (command = \"...\" run by the shell, or argv = "
                        "[\"program\", \"arg\"...])");
  return Status::Ok();
}

}  // namespace

bool ReadStageTables(const TomlChecker& ck, const std::string& key, int line, const toml::node& v,
                     FileErrors* errors, std::vector<StageSpec>* out) {
  const toml::array* a = v.as_array();
  if (a != nullptr && a->empty())
    return errors->Add(ck.Error(key, line, "the array is empty (give at least one stage)"));
  if (a == nullptr || !a->is_array_of_tables())
    return errors->Add(
        ck.Error(key, line, DescribeToml(v) + " is not a list of stages (" + kStagesHelp + ")"));
  if (a->size() > kMaxStages)
    return errors->Add(ck.Error(
        key, line,
        std::to_string(a->size()) + " stages are over the limit of " + std::to_string(kMaxStages)));
  const int before = errors->count();
  std::vector<StageSpec> stages;
  std::map<std::string, size_t> index_by_name;
  for (size_t i = 0; i < a->size(); ++i) {
    const toml::table& t = *a->get(i)->as_table();
    const std::string prefix = key + "[" + std::to_string(i) + "]";
    const int header = t.source().begin.line > 0 ? static_cast<int>(t.source().begin.line) : line;
    StageDraft d;
    const int before_stage = errors->count();
    for (auto [kp, vp] : InFileOrder(t))
      errors->Add(ApplyStageKey(ck, kp->str(), prefix + "." + KeyText(kp->str()),
                                TomlLine(*kp, *vp), *vp, &d));
    if (errors->count() > before_stage || !errors->Add(FinishStage(ck, prefix, header, d)))
      continue;
    auto [it, fresh] = index_by_name.emplace(d.stage.name, i);
    if (!fresh) {
      errors->Add(ck.Error(prefix + ".name", d.name_line,
                           Quote(d.stage.name) + " is already the name of " + key + "[" +
                               std::to_string(it->second) + "] (names must be unique in a task)"));
      continue;
    }
    stages.push_back(std::move(d.stage));
  }
  if (errors->count() > before) return false;
  size_t bytes = 0;
  for (const StageSpec& s : stages) {
    for (const std::string& arg : s.argv) bytes += arg.size() + 1;
    if (s.shell) bytes += s.shell->size() + 1;
  }
  if (bytes > kMaxArgvBytes)
    return errors->Add(ck.Error(key, line,
                                "the stages' commands are over the limit of " +
                                    std::to_string(kMaxArgvBytes) + " bytes together"));
  *out = std::move(stages);
  return true;
}

}  // namespace tq
