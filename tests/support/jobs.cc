#include "support/jobs.h"

#include <doctest/doctest.h>

namespace tqtest {

std::string JobFile(const std::string& name, const std::string& schedule,
                    const std::string& command, const std::vector<std::string>& extra) {
  const nlohmann::json quoted_command = command;  // a TOML basic string is a JSON string
  std::string toml = "[[job]]\nname = \"" + name + "\"\nschedule = \"" + schedule +
                     "\"\ncommand = " + quoted_command.dump() + "\n";
  for (const std::string& line : extra) toml += line + "\n";
  return toml;
}

std::vector<nlohmann::json> JobRuns(const TestDaemon& d, const std::string& name) {
  return ListTasks(d, {"--label", "job:" + name});
}

nlohmann::json JobsJson(const TestDaemon& d) {
  const RunResult r = Tq(d, {"jobs", "--json"});
  REQUIRE_MESSAGE(r.exit_code == 0, r.err);
  return nlohmann::json::parse(r.out);
}

nlohmann::json JobJson(const TestDaemon& d, const std::string& name) {
  const nlohmann::json all = JobsJson(d);  // the loop below must not range over a temporary
  for (const nlohmann::json& j : all["jobs"])
    if (j["name"] == name) return j;
  return nullptr;
}

void Reload(const TestDaemon& d) {
  const RunResult r = Tq(d, {"reload"});
  REQUIRE_MESSAGE(r.exit_code == 0, r.out << r.err);
}

}  // namespace tqtest
