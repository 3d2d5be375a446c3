// What `tq jobs check` says of a job's user and resource units, in tqd's words, from what it
// knows of the daemon; what it does not know is not checked.
#include "core/jobs/job_host_check.h"

#include <doctest/doctest.h>

#include <string>

namespace tq {
namespace {

// Accounts: root (0) and alice (1000); "broken" cannot be looked up.
AccountFound FakeAccounts(const std::string& name) {
  if (name == "root") return {AccountFound::Kind::kFound, 0, ""};
  if (name == "alice") return {AccountFound::Kind::kFound, 1000, ""};
  if (name == "broken") return {AccountFound::Kind::kError, 0, "Connection refused"};
  return {AccountFound::Kind::kMissing, 0, ""};
}

JobDef HostJob(const std::string& user, UnitRequest use = {}) {
  JobDef job;
  job.file = "/etc/tq/jobs.d/a.toml";
  job.line = 3;
  job.user = user;
  job.use = std::move(use);
  return job;
}

TEST_CASE("CheckJobOnHost refuses users and units as tqd would") {
  const UnitPools pools = {{"gpu", {"0", "1"}}, {"licence", {"a"}}};
  struct Case {
    const char* what;
    JobDef job;
    std::optional<uid_t> daemon_uid;
    std::optional<UnitPools> pools;
    std::string message;  // "" = accepted
  };
  const std::string at = "/etc/tq/jobs.d/a.toml:3: ";
  const Case cases[] = {
      {"no user: the daemon's own", HostJob(""), 1000, pools, ""},
      {"an existing user, daemon unknown", HostJob("alice"), std::nullopt, std::nullopt, ""},
      {"a missing user, daemon unknown", HostJob("nosuchuser"), std::nullopt, std::nullopt,
       at + "user: \"nosuchuser\" is not in the password database (name an existing user)"},
      {"a missing user, root daemon", HostJob("nosuchuser"), 0, pools,
       at + "user: \"nosuchuser\" is not in the password database (name an existing user)"},
      {"a lookup that fails", HostJob("broken"), 0, pools,
       at + "user: cannot look up \"broken\": Connection refused"},
      {"another user, daemon not root", HostJob("root"), 1000, pools,
       at + "user: \"root\" is not the user this daemon runs as (only the system daemon runs "
            "jobs as other users; leave user out)"},
      {"its own user, daemon not root", HostJob("alice"), 1000, pools, ""},
      {"units it has", HostJob("", {{"gpu", 2}, {"licence", 1}}), 0, pools, ""},
      {"a resource it lacks", HostJob("", {{"tpu", 1}}), 0, pools,
       at + "use: \"tpu\" is not a resource of this daemon (tqd.toml's [resources] names gpu, "
            "licence)"},
      {"no resources at all", HostJob("", {{"tpu", 1}}), 0, UnitPools{},
       at + "use: \"tpu\" is not a resource of this daemon (tqd.toml names none in "
            "[resources])"},
      {"more units than exist", HostJob("", {{"gpu", 3}}), 0, pools,
       at + "use: gpu=3: only 2 units of gpu exist"},
      {"resources unknown: not checked", HostJob("", {{"tpu", 1}}), std::nullopt, std::nullopt, ""},
      {"the user is checked first", HostJob("nosuchuser", {{"tpu", 1}}), 0, pools,
       at + "user: \"nosuchuser\" is not in the password database (name an existing user)"},
  };
  for (const Case& c : cases) {
    CAPTURE(std::string(c.what));
    const Status st = CheckJobOnHost(c.job, JobHost{FakeAccounts, c.daemon_uid, c.pools});
    CHECK(st.message() == c.message);
    CHECK(st.ok() == c.message.empty());
  }
}

}  // namespace
}  // namespace tq
