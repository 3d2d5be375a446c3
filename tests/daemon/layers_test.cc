// The folders run one way. In src/daemon: handlers, then serve, run, cron and notify, then
// users, then host, then src/core. In src/core: the store over the pure decisions (policy),
// which know no store, over the model. Read from the includes of every file.
#include <doctest/doctest.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <regex>
#include <set>
#include <string>

namespace {

namespace fs = std::filesystem;

const fs::path kDaemonDir = fs::path(TQ_SOURCE_DIR) / "src" / "daemon";
const fs::path kCoreDir = fs::path(TQ_SOURCE_DIR) / "src" / "core";

// The folders of src/daemon each folder may include, besides itself and src/core.
const std::map<std::string, std::set<std::string>> kMayInclude = {
    {"host", {}},
    {"users", {"host"}},
    {"run", {"host", "users", "shim"}},
    {"serve", {"host", "users"}},
    {"notify", {"host", "users", "run", "shim"}},
    {"cron", {"host", "users", "run", "notify", "serve"}},
    {"handlers", {"host", "users", "run", "notify", "serve", "cron"}},
    {"shim", {}},
};

// The folders of src/core each folder may include, besides itself.
const std::map<std::string, std::set<std::string>> kCoreMayInclude = {
    {"model", {}},
    {"config", {"model"}},
    {"cron", {"model"}},
    {"metrics", {"model"}},
    {"policy", {"model"}},
    {"jobs", {"model", "config", "cron"}},
    {"proto", {"model", "config", "jobs"}},
    {"store", {"model", "policy"}},
};

// What `file` includes of src/`tree` ("daemon", "core"): "host/event_loop.h", "daemon.h", ...
std::set<std::string> Includes(const fs::path& file, const std::string& tree) {
  const std::regex include("^\\s*#\\s*include\\s*\"" + tree + "/([^\"]+)\"");
  std::set<std::string> found;
  std::ifstream in(file);
  std::smatch m;
  for (std::string line; std::getline(in, line);)
    if (std::regex_search(line, m, include)) found.insert(m[1]);
  return found;
}

// Checks that every file in a folder of src/`tree` (`dir`) includes of src/`tree` only its own
// folder and those `may` allows it; returns how many files it read.
int CheckLayers(const fs::path& dir, const std::string& tree,
                const std::map<std::string, std::set<std::string>>& may) {
  int read = 0;
  for (const auto& e : fs::recursive_directory_iterator(dir)) {
    const fs::path relative = fs::relative(e.path(), dir);
    const std::string ext = e.path().extension().string();
    if (!e.is_regular_file() || relative.parent_path().empty() ||
        (ext != ".h" && ext != ".cc" && ext != ".c"))
      continue;
    ++read;
    const std::string folder = relative.begin()->string();
    const std::string name = relative.string();
    CAPTURE(name);
    REQUIRE(may.count(folder) == 1);
    for (const std::string& header : Includes(e.path(), tree)) {
      CAPTURE(header);
      const size_t slash = header.find('/');
      REQUIRE(slash != std::string::npos);  // daemon.h: the wiring is no folder's to include
      const std::string to = header.substr(0, slash);
      CHECK((to == folder || may.at(folder).count(to) == 1));
    }
  }
  return read;
}

TEST_CASE("src/daemon holds main.cc, daemon.h, daemon.cc and folders, each with its CMakeLists") {
  std::set<std::string> files, folders;
  for (const auto& e : fs::directory_iterator(kDaemonDir))
    (e.is_directory() ? folders : files).insert(e.path().filename().string());
  CHECK(files == std::set<std::string>{"CMakeLists.txt", "daemon.cc", "daemon.h", "main.cc"});
  for (const std::string& folder : folders) {
    CAPTURE(folder);
    CHECK(kMayInclude.count(folder) == 1);
    CHECK(fs::exists(kDaemonDir / folder / "CMakeLists.txt"));
  }
}

TEST_CASE("no file of a folder of src/daemon includes one of a folder above it") {
  CHECK(CheckLayers(kDaemonDir, "daemon", kMayInclude) > 50);
}

TEST_CASE("no file of a folder of src/core includes one its layer may not: policy knows no store") {
  CHECK(CheckLayers(kCoreDir, "core", kCoreMayInclude) > 50);
}

}  // namespace
