// libFuzzer target for what issue 12's users write: a user's own job file (ParseUserJobFile, as
// `tq jobs install` and the spool load it) and tqd.toml's user keys (admin_group, allow_users,
// deny_users, [user_limits], [users.NAME]) through ParseConfig. Build with -DTQ_FUZZ=ON and
// clang; see README "Fuzzing".
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>

#include "core/config/config.h"
#include "core/jobs/job.h"
#include "core/jobs/user_job_file.h"
#include "core/model/user_rules.h"

namespace {

[[noreturn]] void Fail(const char* what, const std::string& detail) {
  std::fprintf(stderr, "users_fuzz: %s\n%s\n", what, detail.c_str());
  std::abort();
}

// The promises of a user's job file that loaded: every job is the user's and named USER/NAME.
void CheckUserFile(const tq::JobFile& file, const std::string& user) {
  for (const tq::JobDef& job : file.jobs) {
    if (job.user != user) Fail("a job of another user in a user's file", job.user);
    if (job.name.rfind(user + "/", 0) != 0 || !tq::ValidJobRef(job.name))
      Fail("a user's job not named USER/NAME", job.name);
  }
}

// The promises of a config that loaded: every name in the user rules is a valid account name,
// and every limit is in its range.
void CheckConfig(const tq::Config& c) {
  const tq::UserRules& u = c.users;
  if (!u.admin_group.empty() && !tq::ValidAccountName(u.admin_group))
    Fail("a bad admin_group", u.admin_group);
  if (u.allow_users)
    for (const std::string& n : *u.allow_users)
      if (!tq::ValidAccountName(n)) Fail("a bad name in allow_users", n);
  for (const std::string& n : u.deny_users)
    if (!tq::ValidAccountName(n)) Fail("a bad name in deny_users", n);
  const auto check = [](const tq::UserLimits& l, const std::string& who) {
    if (l.max_pending < 1 || !(l.submit_rate > 0) || l.submit_burst < 1 || l.max_running < 0 ||
        l.output_bytes < 1)
      Fail("a limit out of range", who);
  };
  check(c.user_limits, "[user_limits]");
  for (const auto& [name, limits] : c.user_overrides) {
    if (!tq::ValidAccountName(name)) Fail("a bad [users.NAME]", name);
    check(limits, name);
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view input(reinterpret_cast<const char*>(data), size);
  for (const std::string user : {"alice", "svc.backup$"}) {
    const std::string path = "/state/crontabs/" + user + ".toml";
    tq::Result<tq::JobFile> file = tq::ParseUserJobFile(input, path, user);
    if (file.ok()) {
      CheckUserFile(*file, user);
    } else if (file.status().message().rfind(path, 0) != 0) {
      Fail("a refusal that does not name the file", file.status().message());
    }
  }
  tq::Result<tq::Config> config = tq::ParseConfig(input, "tqd.toml");
  if (config.ok()) {
    CheckConfig(*config);
  } else if (config.status().message().rfind("tqd.toml", 0) != 0) {
    Fail("a config refusal that does not name the file", config.status().message());
  }
  return 0;
}
