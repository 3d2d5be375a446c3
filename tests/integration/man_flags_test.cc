// The man pages: each long option that `tq --help` and the --help of each of its subcommands
// (all levels) print appears in man/tq.1, each of `tqd --help` in man/tqd.8, and groff finds
// nothing to warn about in any page.
#include <regex>
#include <set>

#include <doctest/doctest.h>

#include "support/test_daemon.h"

using namespace tqtest;

namespace {

// The lines of `text` under the heading `heading` ("Options:", "Subcommands:") up to the next
// blank line.
std::vector<std::string> Section(const std::string& text, const std::string& heading) {
  std::vector<std::string> out;
  size_t pos = text.find("\n" + heading + "\n");
  if (pos == std::string::npos) return out;
  pos += heading.size() + 2;
  while (pos < text.size()) {
    const size_t end = text.find('\n', pos);
    const std::string line = text.substr(pos, end == std::string::npos ? end : end - pos);
    if (line.empty()) break;
    out.push_back(line);
    if (end == std::string::npos) break;
    pos = end + 1;
  }
  return out;
}

// Every long option `binary ARGS --help` prints, and (with `recurse`) those of its subcommands,
// each with the command that has it ("tq jobs run: --force").
void CollectFlags(const std::string& binary, std::vector<std::string> args, bool recurse,
                  std::map<std::string, std::string>* flags) {
  std::vector<std::string> argv = {BinPath(binary)};
  argv.insert(argv.end(), args.begin(), args.end());
  argv.push_back("--help");
  Process p(argv, {});
  const RunResult r = p.Finish();
  REQUIRE(r.exit_code == 0);
  std::string where = binary;
  for (const std::string& a : args) where += " " + a;
  const std::regex long_option(R"((--[a-z0-9][a-z0-9-]*))");
  for (const std::string& line : Section(r.out, "Options:")) {
    // The option names come before the first run of two spaces after them.
    const std::string names = line.substr(0, line.find("  ", 2));
    for (std::sregex_iterator it(names.begin(), names.end(), long_option), end; it != end; ++it)
      if ((*it)[1] != "--help") flags->emplace((*it)[1], where);
  }
  if (!recurse) return;
  for (const std::string& line : Section(r.out, "Subcommands:")) {
    const size_t start = line.find_first_not_of(' ');
    const std::string sub = line.substr(start, line.find(' ', start) - start);
    std::vector<std::string> deeper = args;
    deeper.push_back(sub);
    CollectFlags(binary, deeper, true, flags);
  }
}

// Whether the man page `text` names `flag`, as groff writes it ("\-\-force") or plainly.
bool Names(const std::string& text, const std::string& flag) {
  std::string groff;
  for (char c : flag) groff += c == '-' ? std::string("\\-") : std::string(1, c);
  return text.find(groff) != std::string::npos || text.find(flag) != std::string::npos;
}

}  // namespace

TEST_CASE("every flag of tq and its subcommands is in tq(1)") {
  std::map<std::string, std::string> flags;
  CollectFlags("tq", {}, true, &flags);
  REQUIRE(flags.size() > 30);  // the walk found the subcommands
  const std::string page = ReadFile(std::string(TQ_SOURCE_DIR) + "/man/tq.1");
  REQUIRE(!page.empty());
  for (const auto& [flag, where] : flags) {
    INFO(where << ": " << flag);
    CHECK(Names(page, flag));
  }
}

TEST_CASE("every flag of tqd is in tqd(8)") {
  std::map<std::string, std::string> flags;
  CollectFlags("tqd", {}, false, &flags);
  REQUIRE(flags.count("--check-config") == 1);
  const std::string page = ReadFile(std::string(TQ_SOURCE_DIR) + "/man/tqd.8");
  REQUIRE(!page.empty());
  for (const auto& [flag, where] : flags) {
    INFO(where << ": " << flag);
    CHECK(Names(page, flag));
  }
}

TEST_CASE("the man pages are clean for groff's man macros, with every warning on") {
  for (const char* page : {"tq.1", "tqd.8", "tq-jobs.5", "tqd.toml.5"}) {
    INFO(page);
    Process p({"/usr/bin/groff", "-man", "-ww", "-z", std::string(TQ_SOURCE_DIR) + "/man/" + page},
              {});
    const RunResult r = p.Finish();
    CHECK(r.exit_code == 0);
    CHECK(r.err == "");
  }
}
