// Many users under one system daemon (SPEC 8): each sees and touches only their own tasks and
// jobs, members of admin_group see everything, and allow_users / deny_users keep users out as
// cron.allow and cron.deny do. The users are made for each test (root only).
#include <doctest/doctest.h>

#include <string>

#include "support/jobs.h"
#include "support/skip.h"
#include "support/temp_user.h"
#include "support/test_daemon.h"

using namespace tqtest;

namespace {
// The id `tq submit ARGS` printed, as `who`.
std::string SubmitAs(const TestDaemon& d, const TempUser& who,
                     const std::vector<std::string>& args) {
  std::vector<std::string> full = {"submit"};
  full.insert(full.end(), args.begin(), args.end());
  const RunResult r = TqAs(d, who.run_as(), full);
  REQUIRE_MESSAGE(r.exit_code == 0, r.err);
  return r.out.substr(0, r.out.find('\n'));
}
}  // namespace

TEST_CASE("another user's task is not found, and a member of admin_group sees every task") {
  if (!CanMakeUsers()) TQ_SKIP("needs root and useradd");
  TempGroup admins;
  TempUser alice, bob, carol("/nonexistent", {admins.name()});
  TestDaemon d("admin_group = \"" + admins.name() + "\"\n");
  TQ_LOG_ON_FAILURE(d);
  const std::string id = SubmitAs(d, alice, {"--delay", "1h", "--", "true"});
  for (const std::vector<std::string>& args : {std::vector<std::string>{"status", id},
                                               {"wait", id},
                                               {"cancel", id},
                                               {"logs", id},
                                               {"retry", id},
                                               {"submit", "--after", id, "--", "true"}}) {
    CAPTURE(args[0]);
    const RunResult r = TqAs(d, bob.run_as(), args);
    CHECK(r.exit_code == 4);
    CHECK(r.err.find("not found") != std::string::npos);
  }
  const RunResult bob_list = TqAs(d, bob.run_as(), {"list", "--json"});
  CHECK(bob_list.exit_code == 0);
  CHECK(bob_list.out.empty());
  CHECK(JsonLines(TqAs(d, alice.run_as(), {"list", "--json"}).out).size() == 1);
  // carol is in admin_group: she sees alice's task and may act on it.
  const RunResult carol_status = TqAs(d, carol.run_as(), {"status", id});
  CHECK_MESSAGE(carol_status.exit_code == 0, carol_status.err);
  CHECK(JsonLines(TqAs(d, carol.run_as(), {"list", "--json"}).out).size() == 1);
  CHECK(TqAs(d, carol.run_as(), {"queue", "pause", "default"}).exit_code == 0);
  CHECK(TqAs(d, bob.run_as(), {"queue", "resume", "default"}).exit_code == 5);
  CHECK(TqAs(d, carol.run_as(), {"cancel", id}).exit_code == 0);
  CHECK(TaskState(d, id) == "cancelled");
}

TEST_CASE("allow_users and deny_users keep users out with a message naming the key") {
  if (!CanMakeUsers()) TQ_SKIP("needs root and useradd");
  TempUser alice, bob, mallory;
  TestDaemon d("allow_users = [\"" + alice.name() + "\", \"" + mallory.name() +
               "\"]\ndeny_users = [\"" + mallory.name() + "\"]\n");
  TQ_LOG_ON_FAILURE(d);
  SubmitAs(d, alice, {"--", "true"});
  for (const TempUser* kept_out : {&bob, &mallory}) {
    CAPTURE(kept_out->name());
    const RunResult submit = TqAs(d, kept_out->run_as(), {"submit", "--", "true"});
    CHECK(submit.exit_code == 5);
    CHECK(submit.err.find("may not use tq") != std::string::npos);
    CHECK(submit.err.find(kept_out == &bob ? "allow_users" : "deny_users") != std::string::npos);
    CHECK(TqAs(d, kept_out->run_as(), {"list"}).exit_code == 5);
    CHECK(TqAs(d, kept_out->run_as(), {"ping"}).exit_code == 0);  // it reaches the daemon
  }
  CHECK(JsonLines(Tq(d, {"list", "--json"}).out).size() == 1);  // nothing was added
  CHECK(Tq(d, {"submit", "--", "true"}).exit_code == 0);        // root is always let in
}

TEST_CASE("a job is seen, run and disabled only by its own user and admins") {
  if (!CanMakeUsers()) TQ_SKIP("needs root and useradd");
  TempUser alice, bob;
  TestDaemon d;
  TQ_LOG_ON_FAILURE(d);
  d.WriteJobFile("alice.toml", JobFile("alice-report", "0 0 1 1 *", "id -u",
                                       {"user = \"" + alice.name() + "\"", "cwd = \"/\""}));
  d.WriteJobFile("root.toml", JobFile("root-report", "0 0 1 1 *", "true"));
  Reload(d);
  for (const std::vector<std::string>& args :
       {std::vector<std::string>{"jobs", "run", "alice-report"},
        {"jobs", "show", "alice-report"},
        {"jobs", "disable", "alice-report"},
        {"jobs", "run", "root-report"}}) {
    CAPTURE(args[1]);
    const RunResult r = TqAs(d, bob.run_as(), args);
    CHECK(r.exit_code == 4);
    CHECK(r.err.find("not found") != std::string::npos);
  }
  const RunResult bob_jobs = TqAs(d, bob.run_as(), {"jobs", "--json"});
  CHECK(bob_jobs.exit_code == 0);
  CHECK(bob_jobs.out.find("report") == std::string::npos);
  const RunResult alice_jobs = TqAs(d, alice.run_as(), {"jobs", "--json"});
  CHECK(alice_jobs.out.find("alice-report") != std::string::npos);
  CHECK(alice_jobs.out.find("root-report") == std::string::npos);

  const RunResult run = TqAs(d, alice.run_as(), {"jobs", "run", "alice-report"});
  REQUIRE_MESSAGE(run.exit_code == 0, run.err);
  const std::string id = run.out.substr(0, run.out.find('\n'));
  CHECK(TqAs(d, alice.run_as(), {"wait", id}).exit_code == 0);
  CHECK(Tq(d, {"logs", id}).out == std::to_string(alice.uid()) + "\n");
  CHECK(TqAs(d, alice.run_as(), {"jobs", "disable", "alice-report"}).exit_code == 0);
  CHECK(Tq(d, {"jobs", "run", "alice-report", "--force"}).exit_code == 0);  // root may
}
