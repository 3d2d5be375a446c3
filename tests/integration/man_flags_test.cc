// The man pages: each long option that `tq --help` and the --help of each of its subcommands
// (all levels) print appears in man/tq.1, each of `tqd --help` in man/tqd.8, and groff finds
// nothing to warn about in any page.
#include <set>

#include <doctest/doctest.h>

#include "support/help_listing.h"
#include "support/test_daemon.h"

using namespace tqtest;

namespace {

// Every long option `binary ARGS --help` prints, and (with `recurse`) those of its subcommands,
// each with the command that has it ("tq jobs run: --force").
void CollectFlags(const std::string& binary, std::vector<std::string> args, bool recurse,
                  std::map<std::string, std::string>* flags) {
  const HelpListing listing = ReadHelp(binary, args);
  std::string where = binary;
  for (const std::string& a : args) where += " " + a;
  for (const std::string& flag : listing.flags)
    if (flag != "--help") flags->emplace(flag, where);
  if (!recurse) return;
  for (const std::string& sub : listing.subcommands) {
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
