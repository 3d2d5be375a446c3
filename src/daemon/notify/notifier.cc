#include "daemon/notify/notifier.h"

#include <unistd.h>

#include <algorithm>
#include <fstream>

#include "core/policy/task_env.h"
#include "daemon/host/log.h"
#include "daemon/users/accounts.h"

namespace tq {

namespace {
// How much of each output stream a hook's TQ_OUTPUT and a mail carry: the end, where the error
// usually is, and small enough for any mailbox.
constexpr std::streamoff kOutputTail = 64 * 1024;

// How often a missing sendmail is said again.
constexpr int64_t kNoSendmailLogMs = 60 * 1000;

// The last `max` bytes of the file at `path`; "" when it cannot be read.
std::string Tail(const std::string& path, std::streamoff max) {
  std::ifstream in(path, std::ios::binary | std::ios::ate);
  if (!in) return "";
  const std::streamoff size = in.tellg();
  const std::streamoff from = std::max<std::streamoff>(0, size - max);
  in.seekg(from);
  std::string text(static_cast<size_t>(size - from), '\0');
  in.read(text.data(), static_cast<std::streamsize>(text.size()));
  text.resize(static_cast<size_t>(std::max<std::streamsize>(0, in.gcount())));
  if (from > 0) text = "[... the first " + std::to_string(from) + " bytes are left out]\n" + text;
  return text;
}

// This machine's name, reduced to what a mail header may carry.
std::string HostName() {
  char buf[256] = {};
  if (gethostname(buf, sizeof buf - 1) != 0) return "localhost";
  std::string host = buf;
  std::erase_if(host, [](char c) { return c <= ' ' || c >= 0x7f; });
  return host.empty() ? "localhost" : host;
}
}  // namespace

Notifier::Notifier(HookRunner& hooks, const Clock& clock, TaskFiles files, const ConfigPtr& config,
                   bool run_as_owner, std::string pam_service, std::string pam_dir,
                   ResourcesOf resources_of, IsAdmin is_admin)
    : hooks_(hooks),
      files_(std::move(files)),
      config_(config),
      run_as_owner_(run_as_owner),
      pam_service_(std::move(pam_service)),
      pam_dir_(std::move(pam_dir)),
      resources_of_(std::move(resources_of)),
      is_admin_(std::move(is_admin)),
      host_(HostName()),
      no_sendmail_(clock, kNoSendmailLogMs) {}

void Notifier::TaskEnded(const Task& task) {
  Tell(task, FactsOf(task));
}

void Notifier::GroupEnded(TaskId group, const std::vector<Task>& shards) {
  if (shards.empty()) return;
  std::vector<TaskState> states;
  for (const Task& shard : shards) states.push_back(shard.state);
  const TaskState state = GroupState(states);
  const Task* teller = &shards.back();
  for (const Task& shard : shards)
    if (shard.state == state) {
      teller = &shard;
      break;
    }
  Task task = *teller;
  task.state = state;
  task.spec.shard.reset();  // the hook tells of the group, not of one shard
  NotifyFacts facts = FactsOf(task);
  facts.task = group;
  Tell(task, facts);
}

void Notifier::Tell(const Task& task, const NotifyFacts& facts) {
  const NotifySpec& n = task.spec.notify;
  // The output is read only when something may tell of it.
  std::optional<std::string> output;
  if (!n.mailto.empty() && n.mail_on == MailOn::kOutput) output = OutputOf(task);
  const NotifyPlan plan = PlanNotify(task, output && !output->empty());
  if (plan.hooks.empty() && !plan.mail) return;
  Send(task, facts, plan, output ? *output : OutputOf(task));
}

void Notifier::JobOverdue(const JobDef& job, const Task& run, const std::string& reason) {
  NotifyFacts facts;
  facts.job = job.name;
  facts.state = "overdue";
  facts.reason = reason;
  facts.command = FactsOf(run).command;
  NotifyPlan plan;
  if (job.notify.on_failure) plan.hooks.push_back({"on_failure", *job.notify.on_failure});
  plan.mail = !job.notify.mailto.empty();
  Send(run, facts, plan, "");
}

void Notifier::Send(const Task& task, const NotifyFacts& facts, const NotifyPlan& plan,
                    const std::string& output) {
  const std::string what =
      facts.task ? "task " + std::to_string(*facts.task) : "job " + facts.job + " (overdue)";
  HookLaunch base;
  base.owner = task.owner.uid;
  base.admin = is_admin_(task.owner);
  // The task's directory; the shim enters / when the user cannot enter it (it is gone, say): the
  // hook that tells of a task that could not start for want of it must still run. The daemon
  // never looks at the directory itself: as root it would see what the user may not.
  base.cwd = task.spec.cwd;
  base.input = output;
  base.resources = resources_of_(task);
  if (run_as_owner_) {
    auto account = AccountOf(task.owner);
    if (!account.ok()) {
      LogWarn("{}: no hooks or mail: {}", what, account.status().message());
      return;
    }
    base.account = *account;
    base.pam_service = pam_service_;
    base.pam_dir = pam_dir_;
  }
  const std::vector<std::string> env =
      AttemptEnvironment(task, facts.attempt, base.account ? &*base.account : nullptr);
  for (const HookCall& hook : plan.hooks) {
    HookLaunch h = base;
    h.what = what + " " + hook.name;
    h.argv = {"/bin/sh", "-c", hook.command};
    h.env = HookEnvironment(facts, hook.name, env, "/dev/stdin");
    hooks_.Run(std::move(h));
  }
  if (!plan.mail) return;
  const std::string& sendmail = config_->sendmail;
  const std::string& mailto = task.spec.notify.mailto;
  if (access(sendmail.c_str(), X_OK) != 0) {
    no_sendmail_.Log(LogLevel::kWarn, what + ": no mail to " + mailto + ": " + sendmail +
                                          " is not there (set sendmail "
                                          "in tqd.toml, or install a mail transfer agent)");
    return;
  }
  HookLaunch mail = base;
  mail.what = what + " mail";
  mail.argv = {sendmail, "-i", "-t"};
  mail.env = env;
  mail.input = MailMessage(facts, mailto, host_, output);
  hooks_.Run(std::move(mail));
}

std::string Notifier::OutputOf(const Task& task) const {
  if (task.attempt_count <= 0) return "";
  const int n = task.attempt_count;
  std::string out = Tail(files_.Stdout(task.id, n), kOutputTail);
  const std::string err = Tail(files_.Stderr(task.id, n), kOutputTail);
  if (!err.empty()) {
    if (!out.empty() && out.back() != '\n') out += "\n";
    out += (out.empty() ? "" : "--- standard error ---\n") + err;
  }
  return out;
}

}  // namespace tq
