#include "daemon/host/make_dirs.h"

#include <sys/stat.h>

#include <doctest/doctest.h>

#include <fstream>

#include "support/temp_dir.h"

namespace tq {
namespace {

// The permission bits of `path`, or -1 when it does not exist.
int ModeOfPath(const std::string& path) {
  struct stat st {};
  return stat(path.c_str(), &st) == 0 ? static_cast<int>(st.st_mode & 07777) : -1;
}

TEST_CASE("MakeDirs creates every missing parent with the mode, as on a fresh account") {
  TempDir tmp("dirs");
  const std::string home = tmp.path.string() + "/home";
  const std::string state = home + "/.local/state/tq";
  REQUIRE(MakeDirs(state, 0700).ok());
  for (const std::string& dir : {home, home + "/.local", home + "/.local/state", state})
    CHECK(ModeOfPath(dir) == 0700);
  CHECK(MakeDirs(state, 0700).ok());  // again: nothing to do
}

TEST_CASE("MakeDirs leaves existing directories as they are") {
  TempDir tmp("dirs");
  const std::string shared = tmp.path.string() + "/shared";
  REQUIRE(mkdir(shared.c_str(), 0755) == 0);
  REQUIRE(MakeDirs(shared + "/mine", 0700).ok());
  CHECK(ModeOfPath(shared) == 0755);
  CHECK(ModeOfPath(shared + "/mine") == 0700);
}

TEST_CASE("MakeDirs names the part of the path that is in the way") {
  TempDir tmp("dirs");
  const std::string file = tmp.path.string() + "/file";
  std::ofstream(file) << "x";
  const Status st = MakeDirs(file + "/state", 0700);
  REQUIRE(!st.ok());
  CHECK(st.code() == ErrorCode::kConfig);
  CHECK(st.message() == "cannot create " + file + "/state: Not a directory");
  const Status whole = MakeDirs(file, 0700);
  CHECK(whole.message() == "cannot create " + file + ": not a directory");
}

}  // namespace
}  // namespace tq
