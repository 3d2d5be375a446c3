// SpareRecords: ended attempts' status records renamed into a pool and out again, blank and
// locked, in place of new files.
#include "daemon/run/spare_records.h"

#include <doctest/doctest.h>
#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "daemon/run/shim_record.h"
#include "support/temp_dir.h"

namespace tq {
namespace {

void WriteRecord(const std::string& path, const std::string& text) {
  std::ofstream(path) << text;
}

size_t CountSpares(const std::string& dir) {
  size_t n = 0;
  for ([[maybe_unused]] const auto& e : std::filesystem::directory_iterator(dir)) ++n;
  return n;
}

// True when another open file can take the lock of `path` at once.
bool Lockable(const std::string& path) {
  const int fd = open(path.c_str(), O_RDONLY | O_CLOEXEC);
  const bool free = fd >= 0 && flock(fd, LOCK_EX | LOCK_NB) == 0;
  if (fd >= 0) close(fd);
  return free;
}

TEST_CASE("spare records: a kept record comes back blank and locked under its new name") {
  TempDir dir;
  const std::string spares = (dir.path / "spare").string();
  std::filesystem::create_directory(spares);
  SpareRecords pool(spares);
  CHECK_FALSE(pool.TakeAs((dir.path / "none").string()).has_value());  // nothing kept yet

  const std::string old_record = (dir.path / "1.1.status").string();
  WriteRecord(old_record, "tq-shim-status 4\nfinished=1\n");
  struct stat before {};
  REQUIRE(stat(old_record.c_str(), &before) == 0);
  pool.Keep(old_record);
  CHECK_FALSE(std::filesystem::exists(old_record));
  CHECK(CountSpares(spares) == 1);

  const std::string next = (dir.path / "2.1.status").string();
  const std::optional<int> fd = pool.TakeAs(next);
  REQUIRE(fd.has_value());
  struct stat after {};
  REQUIRE(fstat(*fd, &after) == 0);
  CHECK(after.st_ino == before.st_ino);
  CHECK(after.st_size == before.st_size);  // blanked, not truncated: its block is kept
  char first = 'x';
  CHECK(pread(*fd, &first, 1, 0) == 1);
  CHECK(first == '\0');
  CHECK(ShimRecordBlank(next));
  CHECK_FALSE(Lockable(next));
  close(*fd);
  CHECK(CountSpares(spares) == 0);
}

TEST_CASE("spare records: one somebody holds locked is not taken") {
  TempDir dir;
  const std::string spares = (dir.path / "spare").string();
  std::filesystem::create_directory(spares);
  SpareRecords pool(spares);
  const std::string record = (dir.path / "1.1.status").string();
  WriteRecord(record, "x");
  const int holder = open(record.c_str(), O_RDONLY | O_CLOEXEC);
  REQUIRE(flock(holder, LOCK_EX) == 0);
  pool.Keep(record);
  const std::string next = (dir.path / "2.1.status").string();
  CHECK_FALSE(pool.TakeAs(next).has_value());
  CHECK_FALSE(std::filesystem::exists(next));
  CHECK(CountSpares(spares) == 1);  // left to its holder, untouched
  close(holder);
  CHECK(std::filesystem::file_size(spares + "/0") == 1);
}

TEST_CASE("spare records: an earlier pool is taken up, and the pool stays bounded") {
  TempDir dir;
  const std::string spares = (dir.path / "spare").string();
  std::filesystem::create_directory(spares);
  for (int i = 0; i < 100; ++i) WriteRecord(spares + "/" + std::to_string(i), "");
  SpareRecords pool(spares);
  CHECK(CountSpares(spares) == 64);  // what is beyond the bound is removed
  const std::string record = (dir.path / "1.1.status").string();
  WriteRecord(record, "");
  pool.Keep(record);  // the pool is full: removed
  CHECK_FALSE(std::filesystem::exists(record));
  CHECK(CountSpares(spares) == 64);
  CHECK(pool.TakeAs((dir.path / "2.1.status").string()).has_value());
}

}  // namespace
}  // namespace tq
