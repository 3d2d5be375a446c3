// What a program's --help lists (CLI11's "Subcommands:" and "Options:" sections), for the tests
// that check the man pages and the shell completions against it.
#pragma once

#include <string>
#include <vector>

namespace tqtest {

/// The subcommands and long options one --help lists, in its order (--help itself included).
struct HelpListing {
  std::vector<std::string> subcommands;
  std::vector<std::string> flags;
};

/// Runs the built `binary ARGS... --help` (REQUIREs success) and reads its listing.
HelpListing ReadHelp(const std::string& binary, const std::vector<std::string>& args);

}  // namespace tqtest
