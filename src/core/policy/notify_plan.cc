#include "core/policy/notify_plan.h"

#include <algorithm>

#include "core/model/stage_progress.h"

namespace tq {

NotifyFacts FactsOf(const Task& task) {
  NotifyFacts f;
  f.task = task.id;
  f.job = task.spec.job.value_or("");
  f.state = StateName(task.state);
  f.reason = TaskReasonName(task.reason);
  f.exit_code = task.exit_code;
  f.attempt = task.attempt_count;
  const StageSpec* stage = StageAt(task.spec, task.stage);
  const std::optional<std::string>& shell = stage != nullptr ? stage->shell : task.spec.shell;
  const std::vector<std::string>& argv = stage != nullptr ? stage->argv : task.spec.argv;
  if (shell) {
    f.command = *shell;
  } else {
    for (const std::string& a : argv) f.command += (f.command.empty() ? "" : " ") + a;
  }
  if (stage != nullptr) f.stage = stage->name;
  return f;
}

NotifyPlan PlanNotify(const Task& task, bool printed) {
  NotifyPlan plan;
  const NotifySpec& n = task.spec.notify;
  const bool failed = task.state == TaskState::kFailed;
  const bool succeeded = task.state == TaskState::kSucceeded;
  if (!failed && !succeeded && task.state != TaskState::kCancelled) return plan;
  if (failed && n.on_failure) plan.hooks.push_back({"on_failure", *n.on_failure});
  if (succeeded && n.on_success) plan.hooks.push_back({"on_success", *n.on_success});
  if (n.on_finish) plan.hooks.push_back({"on_finish", *n.on_finish});
  const bool wanted = n.mail_on == MailOn::kAlways || (n.mail_on == MailOn::kFailure && failed) ||
                      (n.mail_on == MailOn::kOutput && printed);
  plan.mail = !n.mailto.empty() && wanted;
  return plan;
}

std::vector<std::string> HookEnvironment(const NotifyFacts& facts, std::string_view hook,
                                         std::vector<std::string> base,
                                         std::string_view output_path) {
  const std::pair<const char*, std::string> vars[] = {
      {"TQ_TASK_ID", facts.task ? std::to_string(*facts.task) : ""},
      {"TQ_JOB", facts.job},
      {"TQ_STATE", facts.state},
      {"TQ_REASON", facts.reason},
      {"TQ_EXIT_CODE", facts.exit_code >= 0 ? std::to_string(facts.exit_code) : ""},
      {"TQ_ATTEMPT", std::to_string(facts.attempt)},
      {"TQ_STAGE", facts.stage},
      {"TQ_OUTPUT", std::string(output_path)},
      {"TQ_HOOK", std::string(hook)}};
  for (const auto& [name, value] : vars) {
    const std::string prefix = std::string(name) + "=";
    std::erase_if(base, [&](const std::string& e) { return e.starts_with(prefix); });
    base.push_back(prefix + value);
  }
  return base;
}

namespace {
// What the subject says of the end: "failed (exit 3)", "failed (timeout)", "overdue".
std::string Outcome(const NotifyFacts& f) {
  if (f.reason.empty() || f.reason == "none") return f.state;
  if (f.reason == "exit" && f.exit_code >= 0)
    return f.state + " (exit " + std::to_string(f.exit_code) + ")";
  return f.state + " (" + f.reason + ")";
}
}  // namespace

std::string MailMessage(const NotifyFacts& facts, std::string_view mailto, std::string_view host,
                        std::string_view output) {
  std::string what = facts.task ? "task " + std::to_string(*facts.task) : "job " + facts.job;
  if (facts.task && !facts.job.empty()) what += " (" + facts.job + ")";
  std::string m;
  m += "To: " + std::string(mailto) + "\n";
  m += "Subject: tq on " + std::string(host) + ": " + what + " " + Outcome(facts) + "\n";
  m += "Auto-Submitted: auto-generated\n";
  m += "MIME-Version: 1.0\n";
  m += "Content-Type: text/plain; charset=UTF-8\n";
  m += "Content-Transfer-Encoding: 8bit\n";
  if (facts.task) m += "X-Tq-Task: " + std::to_string(*facts.task) + "\n";
  if (!facts.job.empty()) m += "X-Tq-Job: " + facts.job + "\n";
  m += "\n";
  if (facts.task) m += "Task:     " + std::to_string(*facts.task) + "\n";
  if (!facts.job.empty()) m += "Job:      " + facts.job + "\n";
  if (!facts.stage.empty()) m += "Stage:    " + facts.stage + "\n";
  if (!facts.command.empty()) m += "Command:  " + facts.command + "\n";
  m += "State:    " + Outcome(facts) + "\n";
  if (facts.task) m += "Attempts: " + std::to_string(facts.attempt) + "\n";
  if (!output.empty()) {
    m += "\n";
    m += output;
    if (output.back() != '\n') m += "\n";
  }
  return m;
}

}  // namespace tq
