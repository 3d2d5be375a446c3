// tq cron import: a crontab turned into a job file (TOML on stdout, what could not be converted
// on stderr), computed here in the client (no daemon).
#include <pwd.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iostream>
#include <memory>

#include "cli/commands/commands.h"
#include "cli/render.h"
#include "core/jobs/crontab_import.h"
#include "core/jobs/job_file.h"
#include "core/model/quote.h"

namespace tq {

namespace {

// Exit code when some lines could not be converted (the TOML is printed all the same); 2 is a
// usage error or an unreadable file, as elsewhere in tq.
constexpr int kExitProblems = 1;

struct CronImportFlags {
  std::string file;  // "" or "-": standard input
  bool system = false;
};

// Reads all of `in`, at most one byte past the importer's limit (it reports the size).
std::string ReadAll(std::istream& in) {
  std::string data(kMaxJobFileBytes + 1, '\0');
  in.read(data.data(), static_cast<std::streamsize>(data.size()));
  data.resize(static_cast<size_t>(in.gcount()));
  return data;
}

// True when `word` names an account and no command of that name is on PATH: `0 2 * * * root
// /usr/bin/backup` is a system crontab's line, `0 2 * * * mail -s ...` a user's.
bool IsAccountNotCommand(std::string_view word) {
  const std::string name(word);
  if (name.empty() || name.find('/') != std::string::npos || getpwnam(name.c_str()) == nullptr)
    return false;
  const char* path = std::getenv("PATH");
  std::string_view dirs = path != nullptr ? path : "/usr/bin:/bin";
  while (!dirs.empty()) {
    const size_t colon = dirs.find(':');
    const std::string dir(dirs.substr(0, colon));
    if (!dir.empty() && access((dir + "/" + name).c_str(), X_OK) == 0) return false;
    dirs = colon == std::string_view::npos ? std::string_view() : dirs.substr(colon + 1);
  }
  return true;
}

// /etc/crontab and /etc/cron.d/* have a user column.
bool IsSystemCrontabPath(const std::string& path) {
  return path == "/etc/crontab" || path.rfind("/etc/cron.d/", 0) == 0;
}

int Run(const CronImportFlags& f) {
  const bool from_stdin = f.file.empty() || f.file == "-";
  std::string text;
  if (from_stdin) {
    text = ReadAll(std::cin);
  } else {
    std::ifstream in(f.file, std::ios::binary);
    if (!in) {
      return Fail(
          Status::Invalid("FILE", "cannot read " + Quote(f.file) + ": " + std::strerror(errno)));
    }
    text = ReadAll(in);
    if (in.bad()) {
      return Fail(
          Status::Invalid("FILE", "cannot read " + Quote(f.file) + ": " + std::strerror(errno)));
    }
  }
  const CrontabFormat format = f.system || (!from_stdin && IsSystemCrontabPath(f.file))
                                   ? CrontabFormat::kSystem
                                   : CrontabFormat::kUser;
  const CrontabImport result =
      ImportCrontab(text, format, from_stdin ? "standard input" : f.file, IsAccountNotCommand);
  std::fwrite(result.toml.data(), 1, result.toml.size(), stdout);
  std::fflush(stdout);
  // As a compiler says it: tq: FILE:LINE: reason, in the order of the lines.
  const std::string name = from_stdin ? "<stdin>" : f.file;
  const auto say = [&](const CrontabProblem& p, const char* kind) {
    const std::string where = p.line > 0 ? name + ":" + std::to_string(p.line) : name;
    std::fprintf(stderr, "tq: %s: %s%s\n", where.c_str(), kind, p.message.c_str());
  };
  std::vector<std::pair<const CrontabProblem*, const char*>> all;
  for (const CrontabProblem& p : result.problems) all.push_back({&p, ""});
  for (const CrontabProblem& p : result.warnings) all.push_back({&p, "warning: "});
  std::stable_sort(all.begin(), all.end(),
                   [](const auto& a, const auto& b) { return a.first->line < b.first->line; });
  for (const auto& [p, kind] : all) say(*p, kind);
  return result.problems.empty() ? 0 : kExitProblems;
}

}  // namespace

Command AddCronImport(CLI::App& cron, const GlobalOptions&) {
  auto* sub = cron.add_subcommand(
      "import",
      "Convert a crontab to a tq job file: TOML on stdout, lines it cannot convert on stderr "
      "(exit 1 when there are any)");
  auto f = std::make_shared<CronImportFlags>();
  sub->add_option("FILE", f->file,
                  "the crontab (default: standard input); /etc/crontab and /etc/cron.d/* are "
                  "read as system crontabs");
  sub->add_flag("--system", f->system,
                "the crontab has a user column after the schedule (/etc/crontab, /etc/cron.d)");
  return {sub, [f]() { return Run(*f); }};
}

}  // namespace tq
