// The cron jobs' part of the SQLite store: firings, job records and the last good job files.
// PLACEHOLDER until the store's jobs work lands: every method refuses.
#include "core/store/sqlite/sqlite_store.h"

namespace tq {

namespace {
Status NotYet() {
  return Status::Internal("cron jobs: not in the store yet");
}
}  // namespace

Result<FireOutcome> SqliteStore::Fire(const Firing&, const Owner&, const std::optional<TaskSpec>&,
                                      WallMs) {
  return NotYet();
}
Result<JobRuns> SqliteStore::RunsOf(const std::string&) {
  return NotYet();
}
Result<std::vector<JobRecord>> SqliteStore::JobRecords() {
  return NotYet();
}
Status SqliteStore::AddJobs(const std::vector<std::string>&, WallMs) {
  return NotYet();
}
Status SqliteStore::SetJobDisabled(const std::string&, bool) {
  return NotYet();
}
Result<std::vector<StoredJobFile>> SqliteStore::JobFiles() {
  return NotYet();
}
Status SqliteStore::SaveJobFiles(const std::vector<StoredJobFile>&) {
  return NotYet();
}
Status SqliteStore::ForgetJobFiles(const std::vector<std::string>&) {
  return NotYet();
}

}  // namespace tq
