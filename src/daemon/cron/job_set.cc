#include "daemon/cron/job_set.h"

#include <map>
#include <tuple>

#include "core/jobs/file_errors.h"
#include "core/jobs/job_file.h"
#include "core/jobs/user_job_file.h"
#include "core/model/quote.h"
#include "daemon/host/log.h"

namespace tq {

namespace {

// A load error from one line of a refusal of ParseJobFile or a JobCheck ("<file>:<line>: ...").
JobLoadError ErrorOf(const std::string& path, const std::string& message) {
  JobLoadError e{path, 0, message};
  const std::string prefix = path + ":";
  if (message.compare(0, prefix.size(), prefix) == 0) {
    size_t pos = prefix.size();
    int line = 0;
    while (pos < message.size() && message[pos] >= '0' && message[pos] <= '9' && line < 100000000)
      line = line * 10 + (message[pos++] - '0');
    e.line = line;
  }
  return e;
}

// The load errors of a refusal that holds one error per line.
std::vector<JobLoadError> ErrorsOf(const std::string& path, const Status& st) {
  std::vector<JobLoadError> errors;
  for (const std::string& line : MessageLines(st.message())) errors.push_back(ErrorOf(path, line));
  return errors;
}

// Parses `text` as the job file `f` is: a user's own (the spool) or one of the job files.
Result<JobFile> ParseAs(const JobFileRead& f, const std::string& text) {
  return f.user.empty() ? ParseJobFile(text, f.path) : ParseUserJobFile(text, f.path, f.user);
}

// Where each job name in force is defined.
using TakenNames = std::map<std::string, const JobDef*>;

// Why `job` cannot be in force: it fails `check` or its name is taken; Ok when it can.
Status Refusal(const JobDef& job, const JobCheck& check, const TakenNames& taken) {
  if (auto it = taken.find(job.name); it != taken.end())
    return Status(ErrorCode::kConfig, "name",
                  job.file + ":" + std::to_string(job.line) + ": name: " + Quote(job.name) +
                      " is already defined at " + it->second->file + ":" +
                      std::to_string(it->second->line) +
                      " (job names are unique across the job files)");
  return check(job);
}

// The refusals of every job of `jobs` (Refusal), one line each.
Status Refusals(const std::string& path, const std::vector<JobDef>& jobs, const JobCheck& check,
                const TakenNames& taken) {
  FileErrors errors(path);
  for (const JobDef& job : jobs) errors.Add(Refusal(job, check, taken));
  return errors.Joined();
}

}  // namespace

JobSetLoad ResolveJobFiles(const std::vector<JobFileRead>& files,
                           const std::vector<StoredJobFile>& stored, const JobCheck& check,
                           WallMs now) {
  std::map<std::string, const std::string*> last_good;
  for (const StoredJobFile& s : stored) last_good[s.path] = &s.text;

  JobSetLoad out;
  // Definitions live here until the end, so `taken` may point into them.
  std::vector<JobFile> parsed;
  parsed.reserve(files.size());
  std::vector<bool> fallback;
  TakenNames taken;
  for (const JobFileRead& f : files) {
    std::vector<JobLoadError> errors;
    if (f.error) errors.push_back(*f.error);
    if (errors.empty()) {
      auto file = ParseAs(f, f.text);
      Status st = file.ok() ? Refusals(f.path, file->jobs, check, taken) : file.status();
      if (!st.ok()) errors = ErrorsOf(f.path, st);
      if (errors.empty()) {
        auto it = last_good.find(f.path);
        if (it == last_good.end() || *it->second != f.text)
          out.to_save.push_back(StoredJobFile{f.path, f.text, now});
        parsed.push_back(std::move(*file));
        fallback.push_back(false);
        for (const JobDef& job : parsed.back().jobs) taken[job.name] = &job;
        continue;
      }
    }
    out.errors.insert(out.errors.end(), errors.begin(), errors.end());
    auto it = last_good.find(f.path);
    if (it == last_good.end()) continue;
    auto file = ParseAs(f, *it->second);
    if (!file.ok()) {
      LogWarn("{}: its last good text no longer loads either: {}", f.path, file.status().message());
      continue;
    }
    JobFile kept{f.path, {}};
    for (JobDef& job : file->jobs) {
      if (Status refusal = Refusal(job, check, taken); !refusal.ok()) {
        LogWarn("{} (its last good definition is not kept)", refusal.message());
        continue;
      }
      kept.jobs.push_back(std::move(job));
    }
    parsed.push_back(std::move(kept));
    fallback.push_back(true);
    for (const JobDef& job : parsed.back().jobs) taken[job.name] = &job;
  }
  for (size_t i = 0; i < parsed.size(); ++i)
    for (JobDef& job : parsed[i].jobs) out.jobs.push_back(LoadedJob{std::move(job), fallback[i]});

  std::map<std::string, bool> present;
  for (const JobFileRead& f : files) present[f.path] = true;
  for (const StoredJobFile& s : stored)
    if (!present.count(s.path)) out.to_forget.push_back(s.path);
  return out;
}

bool SameDefinition(const JobDef& a, const JobDef& b) {
  const auto fields = [](const JobDef& j) {
    return std::tie(j.name, j.schedule.text, j.timezone, j.dst, j.command, j.shell, j.argv, j.user,
                    j.cwd, j.env, j.stdin_data, j.queue, j.priority, j.timeout_ms, j.pending_ttl_ms,
                    j.overlap, j.misfire, j.max_catch_up, j.max_lateness_ms, j.random_delay_ms,
                    j.resources, j.notify, j.expect_success_within_ms, j.enabled, j.use, j.stages,
                    j.retry, j.shards);
  };
  return fields(a) == fields(b);
}

}  // namespace tq
