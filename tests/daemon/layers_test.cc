// The daemon's folders run one way (handlers, then serve, run, cron and notify, then users, then
// host, then src/core): read from the includes of every file under src/daemon.
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

// What `file` includes of src/daemon: "host/event_loop.h", "daemon.h", ...
std::set<std::string> DaemonIncludes(const fs::path& file) {
  static const std::regex include(R"re(^\s*#\s*include\s*"daemon/([^"]+)")re");
  std::set<std::string> found;
  std::ifstream in(file);
  std::smatch m;
  for (std::string line; std::getline(in, line);)
    if (std::regex_search(line, m, include)) found.insert(m[1]);
  return found;
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
  int read = 0;
  for (const auto& e : fs::recursive_directory_iterator(kDaemonDir)) {
    const fs::path relative = fs::relative(e.path(), kDaemonDir);
    const std::string ext = e.path().extension().string();
    if (!e.is_regular_file() || relative.parent_path().empty() ||
        (ext != ".h" && ext != ".cc" && ext != ".c"))
      continue;
    ++read;
    const std::string folder = relative.begin()->string();
    const std::string name = relative.string();
    CAPTURE(name);
    REQUIRE(kMayInclude.count(folder) == 1);
    const std::set<std::string>& allowed = kMayInclude.at(folder);
    const std::set<std::string> includes = DaemonIncludes(e.path());
    for (const std::string& header : includes) {
      CAPTURE(header);
      const size_t slash = header.find('/');
      REQUIRE(slash != std::string::npos);  // daemon.h: the wiring is no folder's to include
      const std::string to = header.substr(0, slash);
      CHECK((to == folder || allowed.count(to) == 1));
    }
  }
  CHECK(read > 50);
}

}  // namespace
