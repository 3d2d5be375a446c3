// libFuzzer target for job files and `tq cron import`: ParseJobFile on arbitrary text, then
// ImportCrontab on the same text in both crontab formats, checking that whatever the importer
// writes loads (its strongest promise). Build with -DTQ_FUZZ=ON and clang; see README "Fuzzing".
#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>

#include "core/jobs/crontab_import.h"
#include "core/jobs/job.h"
#include "core/jobs/job_file.h"

namespace {

[[noreturn]] void Fail(const char* what, const std::string& detail) {
  std::fprintf(stderr, "jobs_fuzz: %s\n%s\n", what, detail.c_str());
  std::abort();
}

// The jobs of a file that loaded are well formed.
void CheckJobs(const tq::JobFile& file) {
  for (const tq::JobDef& job : file.jobs) {
    if (!tq::ValidJobName(job.name)) Fail("a loaded job with a bad name", job.name);
    if ((job.command.has_value() ? 1 : 0) + (job.argv.empty() ? 0 : 1) +
            (job.stages.empty() ? 0 : 1) !=
        1)
      Fail("a loaded job without exactly one of command, argv and stages", job.name);
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view input(reinterpret_cast<const char*>(data), size);

  // The loader refuses with the file's name, or loads well-formed jobs.
  tq::Result<tq::JobFile> file = tq::ParseJobFile(input, "fuzz.toml");
  if (!file.ok()) {
    if (file.status().message().rfind("fuzz.toml", 0) != 0)
      Fail("a refusal that does not name the file", file.status().message());
  } else {
    CheckJobs(*file);
  }

  // The importer: its output always loads, with cron's overlap and misfire; every problem is
  // a line of the input (or 0, the input as a whole) and is kept as a comment.
  const size_t lines = static_cast<size_t>(std::count(input.begin(), input.end(), '\n')) + 1;
  for (tq::CrontabFormat format : {tq::CrontabFormat::kUser, tq::CrontabFormat::kSystem}) {
    const tq::CrontabImport imported = tq::ImportCrontab(input, format, "fuzz");
    tq::Result<tq::JobFile> back = tq::ParseJobFile(imported.toml, "imported.toml");
    if (!back.ok())
      Fail("the importer's output does not load", back.status().message() + "\n" + imported.toml);
    CheckJobs(*back);
    for (const tq::JobDef& job : back->jobs) {
      if (job.overlap != tq::Overlap::kAllow || job.misfire != tq::Misfire::kSkip)
        Fail("an imported job without cron's overlap and misfire", job.name);
    }
    if (back->jobs.size() > lines) Fail("more jobs than lines", imported.toml);
    for (const tq::CrontabProblem& p : imported.problems) {
      if (p.line < 0 || static_cast<size_t>(p.line) > lines || p.message.empty())
        Fail("a problem without a line of the input", p.message);
    }
    if (!imported.problems.empty() && imported.toml.find("NOT CONVERTED") == std::string::npos)
      Fail("problems not kept in the output", imported.toml);
  }
  return 0;
}
