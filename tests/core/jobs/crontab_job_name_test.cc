// The names `tq cron import` gives jobs: the program a command runs.
#include "core/jobs/crontab_job_name.h"

#include <doctest/doctest.h>

#include <cctype>
#include <string>

namespace tq {
namespace {

// A job name as job files take it: 1 to 64 of [A-Za-z0-9_.-].
bool JobNameShape(const std::string& name) {
  if (name.empty() || name.size() > 64) return false;
  for (char c : name)
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '_' && c != '.' && c != '-')
      return false;
  return true;
}

TEST_CASE("JobNameFromCommand names the program past guards wrappers and assignments") {
  struct Case {
    std::string command, name;
  };
  const Case cases[] = {
      {"/usr/bin/backup-db --full", "backup-db"},
      {"$HOME/bin/daily.job >> $HOME/tmp/out 2>&1", "daily.job"},
      {"cd / && run-parts --report /etc/cron.hourly", "cron.hourly"},
      {"test -x /usr/sbin/anacron || { cd / && run-parts --report /etc/cron.daily; }",
       "cron.daily"},
      {"run-parts", "run-parts"},
      {"[ -x /usr/lib/php/sessionclean ] && if [ ! -d /run/systemd/system ]; then "
       "/usr/lib/php/sessionclean; fi",
       "sessionclean"},
      {"[ -x /etc/init.d/anacron ] && if [ ! -d /run/systemd/system ]; then "
       "/usr/sbin/invoke-rc.d anacron start >/dev/null; fi",
       "invoke-rc.d"},
      {"! /usr/bin/failing && echo no", "failing"},
      {"test -e /run/systemd/system || SERVICE_MODE=1 /sbin/e2scrub_all -A -r", "e2scrub_all"},
      {"command -v debian-sa1 > /dev/null && debian-sa1 1 1", "debian-sa1"},
      {"nice -n 10 ionice -c3 /opt/x/reindex", "reindex"},
      {">/dev/null 2>&1 /usr/bin/quiet", "quiet"},
      {"> /tmp/log /usr/bin/quiet", "quiet"},
      {"'/opt/My App/run.sh' now", "My"},  // split at white space, as the words come
      {"\"/opt/tool\" --x", "tool"},
      {"(cd /tmp; ./clean-up.sh)", "clean-up.sh"},
      {"exec /usr/bin/exec-me", "exec-me"},
      {"/usr/bin/über-tool", "ber-tool"},  // other characters become `_`, trimmed at the ends
      {"/usr/bin/a+b", "a_b"},
      {"/usr/bin/..hidden..", "hidden"},
      {"true", "true"},
      {"12345", "job"},
      {"/", "job"},
      {"", "job"},
      {"cd /tmp", "job"},
      {"$(date)", "date"},
      {std::string(100, 'x'), std::string(64, 'x')},
  };
  for (const Case& c : cases) {
    CAPTURE(c.command);
    const std::string name = JobNameFromCommand(c.command);
    CHECK(name == c.name);
    CHECK(JobNameShape(name));
  }
}

}  // namespace
}  // namespace tq
