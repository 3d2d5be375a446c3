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

bool Has(const std::vector<std::string>& env, const std::string& entry) {
  return std::find(env.begin(), env.end(), entry) != env.end();
}

TEST_CASE("task env: the submitter's environment with the TQ_ variables over it") {
  const auto env = AttemptEnvironment(Make(false, {"A=1", "TQ_QUEUE=x", "NOTIFY_SOCKET=/s"}), 2);
  CHECK(env == std::vector<std::string>{"A=1", "NOTIFY_SOCKET=/s", "TQ_TASK_ID=7", "TQ_ATTEMPT=2",
                                        "TQ_QUEUE=default"});
}

TEST_CASE("task env: a clean environment is cron's, with the spec's entries over it") {
  // tq submit --clean-env sends no entries: cron's environment alone.
  const auto plain = AttemptEnvironment(Make(true, {}), 1);
  CHECK(Has(plain, "SHELL=/bin/sh"));
  CHECK(Has(plain, "PATH=/usr/local/bin:/usr/bin:/bin"));
  CHECK(Has(plain, "TQ_TASK_ID=7"));
  CHECK(Count(plain, "NOTIFY_SOCKET=") == 0);
  // A job's env replaces cron's values of the same name and adds its own.
  const auto job = AttemptEnvironment(
      Make(true, {"PATH=/opt/bin", "REPORT_DIR=/srv", "TQ_ATTEMPT=9", "EMPTY="}), 1);
  CHECK(Count(job, "PATH=") == 1);
  CHECK(Has(job, "PATH=/opt/bin"));
  CHECK(Has(job, "REPORT_DIR=/srv"));
  CHECK(Has(job, "EMPTY="));
  CHECK(Has(job, "SHELL=/bin/sh"));
  CHECK(Count(job, "TQ_ATTEMPT=") == 1);
  CHECK(Has(job, "TQ_ATTEMPT=1"));
}

}  // namespace
}  // namespace tq
