#include "support/help_listing.h"

#include <regex>

#include <doctest/doctest.h>

#include "support/test_daemon.h"

namespace tqtest {

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
}  // namespace

HelpListing ReadHelp(const std::string& binary, const std::vector<std::string>& args) {
  std::vector<std::string> argv = {BinPath(binary)};
  argv.insert(argv.end(), args.begin(), args.end());
  argv.push_back("--help");
  Process p(argv, {});
  const RunResult r = p.Finish();
  REQUIRE(r.exit_code == 0);
  HelpListing listing;
  const std::regex long_option(R"((--[a-z0-9][a-z0-9-]*))");
  for (const std::string& line : Section(r.out, "Options:")) {
    // The option names come before the first run of two spaces after them.
    const std::string names = line.substr(0, line.find("  ", 2));
    for (std::sregex_iterator it(names.begin(), names.end(), long_option), end; it != end; ++it)
      listing.flags.push_back((*it)[1]);
  }
  for (const std::string& line : Section(r.out, "Subcommands:")) {
    const size_t start = line.find_first_not_of(' ');
    listing.subcommands.push_back(line.substr(start, line.find(' ', start) - start));
  }
  return listing;
}

}  // namespace tqtest
