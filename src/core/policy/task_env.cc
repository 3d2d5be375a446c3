#include "core/policy/task_env.h"

#include <pwd.h>

#include <fstream>

namespace tq {

namespace {
// LANG from /etc/default/locale (LANG=xx or LANG="xx"), empty when absent.
std::string SystemLang() {
  std::ifstream in("/etc/default/locale");
  std::string line;
  while (std::getline(in, line)) {
    if (line.rfind("LANG=", 0) != 0) continue;
    std::string value = line.substr(5);
    if (value.size() >= 2 && (value.front() == '"' || value.front() == '\'') &&
        value.back() == value.front())
      value = value.substr(1, value.size() - 2);
    return value;
  }
  return "";
}

bool HasName(const std::string& entry, const std::string& name) {
  return entry.size() > name.size() && entry.compare(0, name.size(), name) == 0 &&
         entry[name.size()] == '=';
}
}  // namespace

std::vector<std::string> CronEnvironment(const Owner& owner) {
  std::vector<std::string> env = {"SHELL=/bin/sh", "PATH=/usr/local/bin:/usr/bin:/bin"};
  passwd pw{};
  passwd* found = nullptr;
  char buf[4096];
  if (getpwuid_r(owner.uid, &pw, buf, sizeof buf, &found) == 0 && found) {
    env.push_back(std::string("HOME=") + pw.pw_dir);
    env.push_back(std::string("USER=") + pw.pw_name);
    env.push_back(std::string("LOGNAME=") + pw.pw_name);
  }
  if (std::string lang = SystemLang(); !lang.empty()) env.push_back("LANG=" + lang);
  return env;
}

std::vector<std::string> AttemptEnvironment(const Task& task, int attempt) {
  const std::vector<std::pair<std::string, std::string>> ours = {
      {"TQ_TASK_ID", std::to_string(task.id)},
      {"TQ_ATTEMPT", std::to_string(attempt)},
      {"TQ_QUEUE", task.spec.queue},
  };
  std::vector<std::string> base;
  if (task.spec.clean_env) {
    base = CronEnvironment(task.owner);
    for (const auto& e : task.spec.env) {
      const size_t eq = e.find('=');
      const std::string name = e.substr(0, eq);
      std::erase_if(base, [&](const std::string& b) { return HasName(b, name); });
      base.push_back(e);
    }
  }
  std::vector<std::string> env;
  for (const auto& e : task.spec.clean_env ? base : task.spec.env) {
    bool replaced = false;
    for (const auto& [name, value] : ours) replaced = replaced || HasName(e, name);
    if (!replaced) env.push_back(e);
  }
  for (const auto& [name, value] : ours) env.push_back(name + "=" + value);
  return env;
}

}  // namespace tq
