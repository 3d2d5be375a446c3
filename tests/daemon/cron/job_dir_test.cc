// Reading a jobs directory: which files count, their order, and the files refused with a reason
// (not regular, too large, not UTF-8 by name, writable by others in the system daemon).
#include "daemon/cron/job_dir.h"

#include <sys/stat.h>
#include <unistd.h>

#include <doctest/doctest.h>

#include <filesystem>
#include <fstream>

#include "core/jobs/job_file.h"
#include "support/skip.h"
#include "support/temp_dir.h"

namespace tq {
namespace {

void Write(const std::string& path, const std::string& text) {
  std::ofstream(path, std::ios::trunc) << text;
}

std::vector<JobFileRead> MustReadDir(const std::string& dir, bool strict) {
  auto files = ReadJobDir(dir, strict);
  REQUIRE_MESSAGE(files.ok(), files.status().message());
  return *files;
}

TEST_CASE("job dir: *.toml files in name order, others and hidden ones left out") {
  TempDir d("jobdir");
  for (const char* name :
       {"b.toml", "a.toml", "10-x.toml", "c.toml.bak", "README", ".#a.toml", ".toml", "d.TOML"})
    Write(d.File(name), std::string("# ") + name + "\n");
  std::filesystem::create_symlink(d.File("a.toml"), d.File("z.toml"));
  const auto files = MustReadDir(d.path.string(), false);
  std::vector<std::string> names;
  for (const auto& f : files) {
    CHECK_FALSE(f.error.has_value());
    names.push_back(std::filesystem::path(f.path).filename().string());
  }
  CHECK(names == std::vector<std::string>{"10-x.toml", "a.toml", "b.toml", "z.toml"});
  CHECK(files[1].path == d.File("a.toml"));
  CHECK(files[1].text == "# a.toml\n");
  CHECK(files[3].text == "# a.toml\n");  // a symbolic link is followed
}

TEST_CASE("job dir: a missing directory holds no files, an unlistable path is an error") {
  TempDir d("jobdir");
  CHECK(MustReadDir(d.File("none"), false).empty());
  Write(d.File("plain"), "");
  auto r = ReadJobDir(d.File("plain"), false);
  REQUIRE_FALSE(r.ok());
  CHECK(r.status().code() == ErrorCode::kConfig);
  CHECK(r.status().message().find(d.File("plain")) != std::string::npos);
}

TEST_CASE("job dir: files that are no job files come back with their error") {
  TempDir d("jobdir");
  REQUIRE(mkfifo(d.File("fifo.toml").c_str(), 0600) == 0);
  std::filesystem::create_directory(d.File("dir.toml"));
  std::filesystem::create_symlink(d.File("gone"), d.File("dangling.toml"));
  Write(d.File("huge.toml"), std::string(kMaxJobFileBytes + 1, '#'));
  Write(d.File("max.toml"), std::string(kMaxJobFileBytes, '#'));
  Write(d.File("bad-\xff-name.toml"), "");
  const auto files = MustReadDir(d.path.string(), false);
  REQUIRE(files.size() == 6);
  struct Want {
    const char* name;
    const char* reason;  // "" when the file reads
  };
  const Want wants[] = {
      {"bad-\\xff-name.toml", "not UTF-8"}, {"dangling.toml", "cannot open"},
      {"dir.toml", "not a regular file"},   {"fifo.toml", "not a regular file"},
      {"huge.toml", "larger than"},         {"max.toml", ""},
  };
  for (size_t i = 0; i < files.size(); ++i) {
    CAPTURE(files[i].path);
    CHECK(files[i].path.find(wants[i].name) != std::string::npos);
    if (*wants[i].reason == '\0') {
      CHECK_FALSE(files[i].error.has_value());
      CHECK(files[i].text.size() == kMaxJobFileBytes);
      continue;
    }
    REQUIRE(files[i].error.has_value());
    CHECK(files[i].error->file == files[i].path);
    CHECK(files[i].error->line == 0);
    CHECK(files[i].error->message.find(wants[i].reason) != std::string::npos);
    CHECK(files[i].text.empty());
  }
}

TEST_CASE("job dir: the system daemon reads only files root owns and no one else may write") {
  if (geteuid() != 0) TQ_SKIP("needs root to give a file to another user");
  TempDir d("jobdir");
  Write(d.File("a-ok.toml"), "");
  Write(d.File("b-other.toml"), "");
  Write(d.File("c-group.toml"), "");
  Write(d.File("d-world.toml"), "");
  REQUIRE(chmod(d.File("a-ok.toml").c_str(), 0644) == 0);
  REQUIRE(chown(d.File("b-other.toml").c_str(), 1000, 1000) == 0);
  REQUIRE(chmod(d.File("c-group.toml").c_str(), 0664) == 0);
  REQUIRE(chmod(d.File("d-world.toml").c_str(), 0646) == 0);
  const auto strict = MustReadDir(d.path.string(), true);
  REQUIRE(strict.size() == 4);
  CHECK_FALSE(strict[0].error.has_value());
  REQUIRE(strict[1].error.has_value());
  CHECK(strict[1].error->message.find("belongs to uid 1000") != std::string::npos);
  REQUIRE(strict[2].error.has_value());
  CHECK(strict[2].error->message.find("writable by its group or others") != std::string::npos);
  CHECK(strict[3].error.has_value());
  // A user daemon reads its own files whatever their mode.
  for (const auto& f : MustReadDir(d.path.string(), false)) CHECK_FALSE(f.error.has_value());
}

}  // namespace
}  // namespace tq
