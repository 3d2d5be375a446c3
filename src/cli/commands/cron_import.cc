// tq cron import: a crontab turned into a job file (TOML on stdout, what could not be converted
// on stderr), computed here in the client (no daemon).
#include <cerrno>
#include <cstdio>
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
  const CrontabImport result = ImportCrontab(text, format, from_stdin ? "standard input" : f.file);
  std::fwrite(result.toml.data(), 1, result.toml.size(), stdout);
  std::fflush(stdout);
  for (const CrontabProblem& p : result.problems) {
    if (p.line > 0)
      std::fprintf(stderr, "LINE %d: %s\n", p.line, p.message.c_str());
    else
      std::fprintf(stderr, "tq: %s\n", p.message.c_str());
  }
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
