// Whose a job's tasks are: the daemon's own user, or in the system daemon the user it names.
#include "daemon/cron/job_user.h"

#include <pwd.h>
#include <unistd.h>

#include <doctest/doctest.h>

namespace tq {
namespace {

JobDef WithUser(const std::string& user) {
  JobDef job;
  job.name = "j";
  job.file = "/etc/tq/jobs.d/a.toml";
  job.line = 3;
  job.user = user;
  return job;
}

TEST_CASE("job user: the system daemon runs a job as the user it names") {
  auto root = JobUserOf(WithUser("root"), 0);
  REQUIRE_MESSAGE(root.ok(), root.status().message());
  CHECK(root->owner.uid == 0);
  CHECK(root->owner.name == "root");
  CHECK(root->home[0] == '/');
  auto own = JobUserOf(WithUser(""), 0);
  REQUIRE(own.ok());
  CHECK(own->owner.uid == 0);

  auto unknown = JobUserOf(WithUser("no-such-user-tq"), 0);
  REQUIRE_FALSE(unknown.ok());
  CHECK(unknown.status().field() == "user");
  CHECK(unknown.status().message() ==
        "/etc/tq/jobs.d/a.toml:3: user: \"no-such-user-tq\" is not in the password database "
        "(name an existing user)");
}

TEST_CASE("job user: a user daemon runs jobs only as its own user") {
  const uid_t uid = 4242;  // any uid but root's: a user daemon
  auto root = JobUserOf(WithUser("root"), uid);
  REQUIRE_FALSE(root.ok());
  CHECK(root.status().message().find("\"root\" is not the user this daemon runs as") !=
        std::string::npos);
  auto own = JobUserOf(WithUser(""), uid);
  REQUIRE(own.ok());
  CHECK(own->owner.uid == uid);
  CHECK_FALSE(own->home.empty());
  // Names with bytes a user name never has are refused like any unknown name.
  CHECK_FALSE(JobUserOf(WithUser("a\xff\n"), 0).ok());
  CHECK_FALSE(JobUserOf(WithUser(std::string(10000, 'u')), 0).ok());
}

}  // namespace
}  // namespace tq
