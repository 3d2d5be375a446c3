#include "core/policy/notify_plan.h"

#include <algorithm>

#include <doctest/doctest.h>

namespace tq {
namespace {

Task EndedAs(TaskState state, TaskReason reason, NotifySpec notify) {
  Task t;
  t.id = 12;
  t.state = state;
  t.reason = reason;
  t.exit_code = reason == TaskReason::kExit ? 3 : -1;
  t.attempt_count = 2;
  t.spec.argv = {"backup", "--all"};
  t.spec.job = "nightly";
  t.spec.notify = std::move(notify);
  return t;
}

NotifySpec AllHooks(std::string mailto = "", MailOn on = MailOn::kFailure) {
  NotifySpec n;
  n.on_failure = "f";
  n.on_success = "s";
  n.on_finish = "e";
  n.mailto = std::move(mailto);
  n.mail_on = on;
  return n;
}

std::vector<std::string> Names(const NotifyPlan& plan) {
  std::vector<std::string> out;
  for (const HookCall& h : plan.hooks) out.push_back(h.name);
  return out;
}

TEST_CASE("PlanNotify: which hooks and whether mail, per end") {
  using S = TaskState;
  using R = TaskReason;
  struct Case {
    const char* name;
    S state;
    R reason;
    NotifySpec notify;
    std::vector<std::string> hooks;
    bool mail;
    bool printed = false;  // the last attempt wrote something
  };
  const Case cases[] = {
      {"failed runs on_failure then on_finish",
       S::kFailed,
       R::kExit,
       AllHooks(),
       {"on_failure", "on_finish"},
       false},
      {"succeeded runs on_success then on_finish",
       S::kSucceeded,
       R::kExit,
       AllHooks(),
       {"on_success", "on_finish"},
       false},
      {"cancelled runs on_finish only",
       S::kCancelled,
       R::kCancelled,
       AllHooks(),
       {"on_finish"},
       false},
      {"a dependency failure is a failure",
       S::kFailed,
       R::kDependencyFailed,
       AllHooks(),
       {"on_failure", "on_finish"},
       false},
      {"expired sets off nothing", S::kExpired, R::kExit, AllHooks("a@b"), {}, false},
      {"pending sets off nothing", S::kPending, R::kNone, AllHooks("a@b"), {}, false},
      {"mail on failure",
       S::kFailed,
       R::kTimeout,
       AllHooks("a@b"),
       {"on_failure", "on_finish"},
       true},
      {"no mail on success by default",
       S::kSucceeded,
       R::kExit,
       AllHooks("a@b"),
       {"on_success", "on_finish"},
       false},
      {"mail_on always mails a success",
       S::kSucceeded,
       R::kExit,
       AllHooks("a@b", MailOn::kAlways),
       {"on_success", "on_finish"},
       true},
      {"mail_on always mails a cancel",
       S::kCancelled,
       R::kCancelled,
       AllHooks("a@b", MailOn::kAlways),
       {"on_finish"},
       true},
      {"nothing set, nothing done", S::kFailed, R::kExit, NotifySpec{}, {}, false},
      {"mail_on output mails a success that printed",
       S::kSucceeded,
       R::kExit,
       AllHooks("a@b", MailOn::kOutput),
       {"on_success", "on_finish"},
       true,
       true},
      {"mail_on output mails no silent success",
       S::kSucceeded,
       R::kExit,
       AllHooks("a@b", MailOn::kOutput),
       {"on_success", "on_finish"},
       false,
       false},
      {"mail_on output mails no silent failure (cron's rule)",
       S::kFailed,
       R::kExit,
       AllHooks("a@b", MailOn::kOutput),
       {"on_failure", "on_finish"},
       false,
       false},
      {"mail_on output mails a cancel that printed",
       S::kCancelled,
       R::kCancelled,
       AllHooks("a@b", MailOn::kOutput),
       {"on_finish"},
       true,
       true},
      {"mail_on failure ignores what was printed",
       S::kSucceeded,
       R::kExit,
       AllHooks("a@b"),
       {"on_success", "on_finish"},
       false,
       true},
  };
  for (const Case& c : cases) {
    CAPTURE(c.name);
    const NotifyPlan plan = PlanNotify(EndedAs(c.state, c.reason, c.notify), c.printed);
    CHECK(Names(plan) == c.hooks);
    CHECK(plan.mail == c.mail);
  }
}

TEST_CASE("PlanNotify carries each hook's command") {
  const NotifyPlan plan =
      PlanNotify(EndedAs(TaskState::kFailed, TaskReason::kExit, AllHooks()), false);
  REQUIRE(plan.hooks.size() == 2);
  CHECK(plan.hooks[0].command == "f");
  CHECK(plan.hooks[1].command == "e");
}

TEST_CASE("HookEnvironment sets every TQ_ variable over the task's own") {
  const NotifyFacts facts = FactsOf(EndedAs(TaskState::kFailed, TaskReason::kExit, AllHooks()));
  const std::vector<std::string> env = HookEnvironment(
      facts, "on_failure", {"PATH=/bin", "TQ_STATE=forged", "TQ_TASK_ID=1"}, "/dev/stdin");
  for (const char* want : {"PATH=/bin", "TQ_TASK_ID=12", "TQ_JOB=nightly", "TQ_STATE=failed",
                           "TQ_REASON=exit", "TQ_EXIT_CODE=3", "TQ_ATTEMPT=2",
                           "TQ_STAGE=", "TQ_OUTPUT=/dev/stdin", "TQ_HOOK=on_failure"}) {
    CAPTURE(want);
    CHECK(std::count(env.begin(), env.end(), want) == 1);
  }
  CHECK(std::count(env.begin(), env.end(), "TQ_STATE=forged") == 0);
  CHECK(env.size() == 10);
}

TEST_CASE("a task with stages tells its hooks and mail the stage it ended at") {
  Task task = EndedAs(TaskState::kFailed, TaskReason::kExit, AllHooks());
  task.spec.argv.clear();
  task.spec.stages = {{"dump", {"pg_dump"}, std::nullopt, std::nullopt, {}},
                      {"upload", {}, "rclone copy x y", std::nullopt, {}}};
  task.stage = 1;
  const NotifyFacts facts = FactsOf(task);
  CHECK(facts.stage == "upload");
  CHECK(facts.command == "rclone copy x y");
  const std::vector<std::string> env = HookEnvironment(facts, "on_failure", {}, "/dev/stdin");
  CHECK(std::count(env.begin(), env.end(), "TQ_STAGE=upload") == 1);
  const std::string mail = MailMessage(facts, "ops@example.com", "db1", "");
  CHECK(mail.find("Stage:    upload\n") != std::string::npos);
}

TEST_CASE("HookEnvironment leaves TQ_EXIT_CODE empty when nothing exited") {
  const NotifyFacts facts = FactsOf(EndedAs(TaskState::kFailed, TaskReason::kTimeout, AllHooks()));
  const std::vector<std::string> env = HookEnvironment(facts, "on_finish", {}, "/dev/stdin");
  CHECK(std::count(env.begin(), env.end(), "TQ_EXIT_CODE=") == 1);
  CHECK(std::count(env.begin(), env.end(), "TQ_REASON=timeout") == 1);
}

TEST_CASE("MailMessage: headers first, then the facts and the output") {
  const NotifyFacts facts = FactsOf(EndedAs(TaskState::kFailed, TaskReason::kExit, AllHooks()));
  const std::string m = MailMessage(facts, "ops@example.com", "box", "disk full\n");
  CHECK(m.starts_with("To: ops@example.com\n"));
  CHECK(m.find("Subject: tq on box: task 12 (nightly) failed (exit 3)\n") != std::string::npos);
  CHECK(m.find("Auto-Submitted: auto-generated\n") != std::string::npos);
  const size_t body = m.find("\n\n");
  REQUIRE(body != std::string::npos);
  CHECK(m.find("Command:  backup --all\n") > body);
  CHECK(m.find("Attempts: 2\n") > body);
  CHECK(m.ends_with("\ndisk full\n"));
}

TEST_CASE("MailMessage of an overdue job names the job") {
  NotifyFacts facts;
  facts.job = "nightly";
  facts.state = "overdue";
  facts.reason = "no success within 1d2h";
  const std::string m = MailMessage(facts, "ops@example.com", "box", "");
  CHECK(m.find("Subject: tq on box: job nightly overdue (no success within 1d2h)\n") !=
        std::string::npos);
  CHECK(m.find("X-Tq-Task") == std::string::npos);
}

}  // namespace
}  // namespace tq
