// Which layout an unsaid crontab has: a clear majority of entries naming an account after the
// schedule makes it a system crontab; a word that is a command on the crontab's PATH is none.
#include "core/jobs/crontab_format.h"

#include <doctest/doctest.h>

#include <map>
#include <string>

namespace tq {
namespace {

TEST_CASE("GuessCrontabFormat reads a system crontab only from a clear majority of entries") {
  // Accounts: root and backup; a backup command lives in /opt/bin.
  const CrontabLookups lookups = {
      [](std::string_view word) { return word == "root" || word == "backup"; },
      [](std::string_view word, std::string_view path) {
        return word == "backup" && path.find("/opt/bin") != std::string_view::npos;
      }};
  struct Case {
    const char* what;
    std::string crontab;
    CrontabFormat format;
    std::map<int, std::string> account_lines;
    int entries;
  };
  const Case cases[] = {
      {"none", "", CrontabFormat::kUser, {}, 0},
      {"one entry is never enough",
       "0 1 * * * root /bin/a\n",
       CrontabFormat::kUser,
       {{1, "/usr/bin:/bin"}},
       1},
      {"two of two",
       "0 1 * * * root /bin/a\n0 2 * * * root /bin/b\n",
       CrontabFormat::kSystem,
       {{1, "/usr/bin:/bin"}, {2, "/usr/bin:/bin"}},
       2},
      {"two of three is two thirds",
       "0 1 * * * root /bin/a\n0 2 * * * root /bin/b\n0 3 * * * /bin/c\n",
       CrontabFormat::kSystem,
       {{1, "/usr/bin:/bin"}, {2, "/usr/bin:/bin"}},
       3},
      {"two of four is not",
       "0 1 * * * root /bin/a\n0 2 * * * root /bin/b\n0 3 * * * /bin/c\n0 4 * * * /bin/d\n",
       CrontabFormat::kUser,
       {{1, "/usr/bin:/bin"}, {2, "/usr/bin:/bin"}},
       4},
      {"a command on the crontab's PATH names no account",
       "PATH=/opt/bin:/bin\n0 1 * * * backup --all\n0 2 * * * backup --all\n",
       CrontabFormat::kUser,
       {},
       2},
      {"the PATH in effect at each line",
       "PATH=/sbin\n0 1 * * * backup --all\nPATH=/opt/bin\n0 2 * * * backup --all\n",
       CrontabFormat::kUser,
       {{2, "/sbin"}},
       2},
      {"a word alone is the command",
       "0 1 * * * root\n0 2 * * * root\n",
       CrontabFormat::kUser,
       {},
       2},
      {"lines that are no entry do not count",
       "# c\nX=1\n61 * * * * root /bin/a\n0 1 * * * root /bin/a\n0 2 * * * root /bin/b\n",
       CrontabFormat::kSystem,
       {{4, "/usr/bin:/bin"}, {5, "/usr/bin:/bin"}},
       2},
  };
  for (const Case& c : cases) {
    CAPTURE(std::string(c.what));
    const CrontabFormatGuess guess = GuessCrontabFormat(c.crontab, lookups);
    CHECK(guess.format == c.format);
    CHECK(guess.account_lines == c.account_lines);
    CHECK(guess.entries == c.entries);
  }
}

}  // namespace
}  // namespace tq
