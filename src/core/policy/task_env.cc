#include "core/policy/task_env.h"

#include <pwd.h>

#include <fstream>

#include "core/model/stage_progress.h"
#include "core/policy/unit_grant.h"

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

// The entry's name: what comes before its first '=' (all of it when there is none).
std::string_view NameOf(const std::string& entry) {
  return std::string_view(entry).substr(0, entry.find('='));
}

// Cron's environment for the user `name` whose home is `home`; no HOME, USER or LOGNAME when
// `name` is empty (an owner the password database does not know).
std::vector<std::string> CronEnvironmentFor(const std::string& name, const std::string& home) {
  std::vector<std::string> env = {"SHELL=/bin/sh", "PATH=/usr/local/bin:/usr/bin:/bin"};
  if (!name.empty()) env.insert(env.end(), {"HOME=" + home, "USER=" + name, "LOGNAME=" + name});
  if (std::string lang = SystemLang(); !lang.empty()) env.push_back("LANG=" + lang);
  return env;
}

// A captured environment as the system daemon passes it to `account`'s task: no unsafe
// variable, and the account's own HOME, USER, LOGNAME and SHELL.
std::vector<std::string> ForAccount(const std::vector<std::string>& captured,
                                    const Account& account) {
  const std::vector<std::pair<std::string, std::string>> own = {{"HOME", account.home},
                                                                {"USER", account.name},
                                                                {"LOGNAME", account.name},
                                                                {"SHELL", account.shell}};
  std::vector<std::string> env;
  for (const std::string& e : captured) {
    const std::string_view name = NameOf(e);
    bool replaced = IsUnsafeVariable(name);
    for (const auto& [own_name, value] : own) replaced = replaced || name == own_name;
    if (!replaced) env.push_back(e);
  }
  for (const auto& [name, value] : own) env.push_back(name + "=" + value);
  return env;
}
}  // namespace

bool IsUnsafeVariable(std::string_view name) {
  // glibc's list of variables a setuid program ignores (UNSECURE_ENVVARS, but for TMPDIR and
  // TZDIR, which only choose among the user's own files), and what makes a shell run or parse
  // something the command did not say.
  static constexpr std::string_view kNames[] = {
      "BASHOPTS",       "BASH_ENV",    "ENV",     "GCONV_PATH",  "GETCONF_DIR",
      "GLIBC_TUNABLES", "HOSTALIASES", "IFS",     "LOCALDOMAIN", "LOCPATH",
      "MALLOC_TRACE",   "NIS_PATH",    "NLSPATH", "PS4",         "RESOLV_HOST_CONF",
      "RES_OPTIONS",    "SHELLOPTS"};
  static constexpr std::string_view kPrefixes[] = {"LD_", "BASH_FUNC_"};
  for (std::string_view n : kNames)
    if (name == n) return true;
  for (std::string_view p : kPrefixes)
    if (name.starts_with(p)) return true;
  return false;
}

std::vector<std::string> CronEnvironment(const Owner& owner) {
  passwd pw{};
  passwd* found = nullptr;
  char buf[4096];
  if (getpwuid_r(owner.uid, &pw, buf, sizeof buf, &found) == 0 && found)
    return CronEnvironmentFor(pw.pw_name, pw.pw_dir);
  return CronEnvironmentFor("", "");
}

std::vector<std::string> AttemptEnvironment(const Task& task, int attempt, const Account* account,
                                            const UnitGrant& units, const StageEnvironment& stage) {
  std::vector<std::pair<std::string, std::string>> ours = {
      {"TQ_TASK_ID", std::to_string(task.id)},
      {"TQ_ATTEMPT", std::to_string(attempt)},
      {"TQ_QUEUE", task.spec.queue},
  };
  if (!task.spec.stages.empty()) {
    ours.emplace_back("TQ_STAGE", StageName(task.spec, task.stage));
    ours.emplace_back("TQ_STAGE_INDEX", std::to_string(task.stage));
    ours.emplace_back("TQ_CONTEXT", stage.context_dir);
  }
  if (task.spec.shard) {
    ours.emplace_back("TQ_SHARD_INDEX", std::to_string(task.spec.shard->index));
    ours.emplace_back("TQ_SHARD_TOTAL", std::to_string(task.spec.shard->total));
  }
  for (auto& entry : UnitEnvironment(units)) ours.push_back(std::move(entry));
  std::vector<std::string> base;
  if (!task.spec.clean_env && account) base = ForAccount(task.spec.env, *account);
  if (task.spec.clean_env) {
    base = account ? CronEnvironmentFor(account->name, account->home) : CronEnvironment(task.owner);
    for (const auto& e : task.spec.env) {
      // Only a job file's env is kept as written; what a submitter sends is filtered.
      if (account && !task.spec.job && IsUnsafeVariable(NameOf(e))) continue;
      const size_t eq = e.find('=');
      const std::string name = e.substr(0, eq);
      std::erase_if(base, [&](const std::string& b) { return HasName(b, name); });
      base.push_back(e);
    }
  }
  const std::vector<std::string>* given = task.spec.clean_env || account ? &base : &task.spec.env;
  if (!stage.passed_on.empty()) {  // over what the task was given
    if (given != &base) base = *given;
    for (const std::string& e : stage.passed_on) {
      const std::string name(NameOf(e));
      std::erase_if(base, [&](const std::string& b) { return HasName(b, name); });
      base.push_back(e);
    }
    given = &base;
  }
  std::vector<std::string> env;
  for (const auto& e : *given) {
    bool replaced = false;
    for (const auto& [name, value] : ours) replaced = replaced || HasName(e, name);
    if (!replaced) env.push_back(e);
  }
  for (const auto& [name, value] : ours) env.push_back(name + "=" + value);
  return env;
}

}  // namespace tq
