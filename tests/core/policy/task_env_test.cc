// The environment of an attempt: the submitter's, or cron's with the spec's entries over it.
#include "core/policy/task_env.h"

#include <unistd.h>

#include <doctest/doctest.h>

#include <algorithm>

namespace tq {
namespace {

Task Make(bool clean_env, std::vector<std::string> env) {
  Task t;
  t.id = 7;
  t.owner = Owner{static_cast<uint32_t>(getuid()), static_cast<uint32_t>(getgid()), "me"};
  t.spec.clean_env = clean_env;
  t.spec.env = std::move(env);
  return t;
}

int Count(const std::vector<std::string>& env, const std::string& prefix) {
  return static_cast<int>(std::count_if(
      env.begin(), env.end(), [&](const std::string& e) { return e.rfind(prefix, 0) == 0; }));
}

bool HasVariable(const std::vector<std::string>& env, const std::string& entry) {
  return std::find(env.begin(), env.end(), entry) != env.end();
}

TEST_CASE("task env: the submitter's environment with the TQ_ variables over it") {
  const auto env = AttemptEnvironment(Make(false, {"A=1", "TQ_QUEUE=x", "NOTIFY_SOCKET=/s"}), 2);
  CHECK(env == std::vector<std::string>{"A=1", "NOTIFY_SOCKET=/s", "TQ_TASK_ID=7", "TQ_ATTEMPT=2",
                                        "TQ_QUEUE=default"});
}

TEST_CASE("task env: the attempt's units replace what the submitter had of their names") {
  const auto env =
      AttemptEnvironment(Make(false, {"CUDA_VISIBLE_DEVICES=0,1,2,3", "TQ_RESOURCE_GPU=x", "B=2"}),
                         1, nullptr, UnitGrant{{"gpu", {"2"}}});
  CHECK(env == std::vector<std::string>{"B=2", "TQ_TASK_ID=7", "TQ_ATTEMPT=1", "TQ_QUEUE=default",
                                        "TQ_RESOURCE_GPU=2", "CUDA_VISIBLE_DEVICES=2"});
}

TEST_CASE("task env: a clean environment is cron's, with the spec's entries over it") {
  // tq submit --clean-env sends no entries: cron's environment alone.
  const auto plain = AttemptEnvironment(Make(true, {}), 1);
  CHECK(HasVariable(plain, "SHELL=/bin/sh"));
  CHECK(HasVariable(plain, "PATH=/usr/local/bin:/usr/bin:/bin"));
  CHECK(HasVariable(plain, "TQ_TASK_ID=7"));
  CHECK(Count(plain, "NOTIFY_SOCKET=") == 0);
  // A job's env replaces cron's values of the same name and adds its own.
  const auto job = AttemptEnvironment(
      Make(true, {"PATH=/opt/bin", "REPORT_DIR=/srv", "TQ_ATTEMPT=9", "EMPTY="}), 1);
  CHECK(Count(job, "PATH=") == 1);
  CHECK(HasVariable(job, "PATH=/opt/bin"));
  CHECK(HasVariable(job, "REPORT_DIR=/srv"));
  CHECK(HasVariable(job, "EMPTY="));
  CHECK(HasVariable(job, "SHELL=/bin/sh"));
  CHECK(Count(job, "TQ_ATTEMPT=") == 1);
  CHECK(HasVariable(job, "TQ_ATTEMPT=1"));
}

TEST_CASE("task env: the variables the system daemon never passes on") {
  struct Case {
    const char* name;
    bool unsafe;
  };
  const Case cases[] = {
      {"LD_PRELOAD", true},
      {"LD_LIBRARY_PATH", true},
      {"LD_", true},
      {"LD_AUDIT", true},
      {"GCONV_PATH", true},
      {"GLIBC_TUNABLES", true},
      {"BASH_ENV", true},
      {"ENV", true},
      {"IFS", true},
      {"SHELLOPTS", true},
      {"BASHOPTS", true},
      {"PS4", true},
      {"BASH_FUNC_f%%", true},
      {"NLSPATH", true},
      {"RES_OPTIONS", true},
      {"PATH", false},
      {"HOME", false},
      {"LANG", false},
      {"TMPDIR", false},
      {"TZ", false},
      {"LDAP_URI", false},
      {"ENVIRONMENT", false},
      {"MY_ENV", false},
      {"ld_preload", false},
      {"", false},
  };
  for (const Case& c : cases) {
    CAPTURE(std::string(c.name));
    CHECK(IsUnsafeVariable(c.name) == c.unsafe);
  }
}

TEST_CASE("task env: for an account a captured environment loses the unsafe variables") {
  const Account alice{1001, 1001, {1001, 27}, "alice", "/home/alice", "/bin/bash"};
  const auto env = AttemptEnvironment(
      Make(false, {"LD_PRELOAD=/tmp/evil.so", "A=1", "BASH_ENV=/tmp/rc", "HOME=/root", "USER=root",
                   "SHELL=/bin/zsh", "IFS=x", "PATH=/usr/bin", "LOGNAME=root",
                   "BASH_FUNC_ls%%=() { :; }", "NOVALUE"}),
      1, &alice);
  CHECK(env == std::vector<std::string>{"A=1", "PATH=/usr/bin", "NOVALUE", "HOME=/home/alice",
                                        "USER=alice", "LOGNAME=alice", "SHELL=/bin/bash",
                                        "TQ_TASK_ID=7", "TQ_ATTEMPT=1", "TQ_QUEUE=default"});
}

TEST_CASE("task env: for an account cron's environment is the account's, a job's env is kept") {
  const Account alice{1001, 1001, {1001}, "alice", "/home/alice", "/bin/bash"};
  Task job = Make(true, {"LD_LIBRARY_PATH=/opt/lib", "X=1"});
  job.spec.job = "report";
  const auto env = AttemptEnvironment(job, 3, &alice);
  CHECK(HasVariable(env, "HOME=/home/alice"));
  CHECK(HasVariable(env, "USER=alice"));
  CHECK(HasVariable(env, "LOGNAME=alice"));
  CHECK(HasVariable(env, "SHELL=/bin/sh"));  // cron's, as cron sets it
  // What the job file's author wrote is deliberate: it is kept.
  CHECK(HasVariable(env, "LD_LIBRARY_PATH=/opt/lib"));
  CHECK(HasVariable(env, "X=1"));
  CHECK(Count(env, "HOME=") == 1);
  CHECK(HasVariable(env, "TQ_ATTEMPT=3"));
}

TEST_CASE("task env: for an account a submitter's entries over cron's lose the unsafe ones") {
  const Account alice{1001, 1001, {1001}, "alice", "/home/alice", "/bin/bash"};
  const auto env = AttemptEnvironment(
      Make(true, {"LD_PRELOAD=/tmp/x.so", "BASH_ENV=/tmp/rc", "X=1"}), 1, &alice);
  CHECK(Count(env, "LD_PRELOAD=") == 0);
  CHECK(Count(env, "BASH_ENV=") == 0);
  CHECK(HasVariable(env, "X=1"));
}

TEST_CASE("task env: for an account a submitter's entries over cron's lose the unsafe ones") {
  const Account alice{1001, 1001, {1001}, "alice", "/home/alice", "/bin/bash"};
  const auto env = AttemptEnvironment(
      Make(true, {"LD_PRELOAD=/tmp/x.so", "BASH_ENV=/tmp/rc", "X=1"}), 1, &alice);
  CHECK(Count(env, "LD_PRELOAD=") == 0);
  CHECK(Count(env, "BASH_ENV=") == 0);
  CHECK(HasVariable(env, "X=1"));
}

}  // namespace
}  // namespace tq
