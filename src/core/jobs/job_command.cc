#include "core/jobs/job_command.h"

namespace tq {

namespace {

// The shell the daemon runs TaskSpec.shell and StageSpec.shell with (the shim's /bin/sh -c).
constexpr const char* kTaskShell = "/bin/sh";

// `command` run by `shell`, into the argv and shell of a task or a stage.
void RunByShell(const std::string& shell, const std::string& command,
                std::vector<std::string>* argv, std::optional<std::string>* task_shell) {
  if (shell == kTaskShell) {
    argv->clear();
    *task_shell = command;
  } else {
    *argv = {shell, "-c", command};
    task_shell->reset();
  }
}

}  // namespace

void SetJobCommand(const JobDef& job, TaskSpec* spec) {
  spec->argv.clear();
  spec->shell.reset();
  spec->stages = job.stages;
  for (StageSpec& stage : spec->stages)
    if (stage.shell) RunByShell(job.shell, std::string(*stage.shell), &stage.argv, &stage.shell);
  if (!spec->stages.empty()) return;
  if (job.command) {
    RunByShell(job.shell, *job.command, &spec->argv, &spec->shell);
  } else {
    spec->argv = job.argv;
  }
}

}  // namespace tq
