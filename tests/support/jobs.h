// What the cron job integration tests share: a job file's text, a job's runs and `tq jobs`.
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "support/test_daemon.h"

namespace tqtest {

/// A job file with one `[[job]]`: its name, schedule, shell command and extra `key = value`
/// lines (TOML, as written).
std::string JobFile(const std::string& name, const std::string& schedule,
                    const std::string& command, const std::vector<std::string>& extra = {});
/// The tasks of job `name` (`tq list --label job:NAME`), newest first.
std::vector<nlohmann::json> JobRuns(const TestDaemon& d, const std::string& name);
/// `tq jobs --json`, parsed; REQUIREs success.
nlohmann::json JobsJson(const TestDaemon& d);
/// The job `name` from `tq jobs --json`, or null when it is not listed.
nlohmann::json JobJson(const TestDaemon& d, const std::string& name);
/// `tq reload`, REQUIRing exit 0.
void Reload(const TestDaemon& d);

}  // namespace tqtest
