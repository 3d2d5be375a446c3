// tq cron import, run: a crontab turned into a job file (TOML on stdout, what could not be
// converted on stderr), computed here in the client (no daemon).
#include <pwd.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <iostream>
#include <optional>

#include "cli/full/full_runs.h"
#include "cli/render.h"
#include "core/jobs/crontab_import.h"
#include "core/jobs/job_file.h"
#include "core/model/quote.h"

namespace tq {

namespace {

// Exit code when some lines could not be converted (the TOML is printed all the same); 2 is a
// usage error or an unreadable file, as elsewhere in tq.
constexpr int kExitProblems = 1;

// Reads all of `in`, at most one byte past the importer's limit (it reports the size).
std::string ReadAll(std::istream& in) {
  std::string data(kMaxJobFileBytes + 1, '\0');
  in.read(data.data(), static_cast<std::streamsize>(data.size()));
  data.resize(static_cast<size_t>(in.gcount()));
  return data;
}

// True when `word` is an account's name in the password database.
bool IsCrontabAccount(std::string_view word) {
  const std::string name(word);
  return !name.empty() && name.find('/') == std::string::npos && getpwnam(name.c_str()) != nullptr;
}

// True when `word` is an executable file in one of the absolute directories of `path`, as the
// shell cron starts would find it (relative ones would be relative to the job's HOME).
bool IsCommandOnPath(std::string_view word, std::string_view path) {
  if (word.empty() || word.find('/') != std::string_view::npos) return false;
  while (true) {
    const size_t colon = path.find(':');
    const std::string dir(path.substr(0, colon));
    if (!dir.empty() && dir[0] == '/') {
      const std::string file = dir + "/" + std::string(word);
      struct stat st {};
      if (stat(file.c_str(), &st) == 0 && S_ISREG(st.st_mode) && access(file.c_str(), X_OK) == 0)
        return true;
    }
    if (colon == std::string_view::npos) return false;
    path.remove_prefix(colon + 1);
  }
}

// /etc/crontab and /etc/cron.d/* have a user column.
bool IsSystemCrontabPath(const std::string& path) {
  return path == "/etc/crontab" || path.rfind("/etc/cron.d/", 0) == 0;
}

}  // namespace

int RunCronImport(const CronImportFlags& f) {
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
  // What the user says, then where the file is; else the entries decide (crontab_format.h).
  std::optional<CrontabFormat> format;
  if (f.user_format)
    format = CrontabFormat::kUser;
  else if (f.system || (!from_stdin && IsSystemCrontabPath(f.file)))
    format = CrontabFormat::kSystem;
  const CrontabImport result = ImportCrontab(text, format, from_stdin ? "standard input" : f.file,
                                             {IsCrontabAccount, IsCommandOnPath});
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

}  // namespace tq
