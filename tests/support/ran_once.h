// What the tests of several hosts under faults share: a ledger each run of a task appends its id
// to, checked against the attempts the store lost.
#pragma once

#include <doctest/doctest.h>

#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "support/pg_server.h"
#include "support/test_daemon.h"

namespace tqtest {

/// Checks that each of `ids` ran (its id is a line of `ledger`) once, or again only after an
/// attempt lost with its host (in the store at `uri`).
inline void CheckRanOnceUnlessLost(const std::string& uri, const std::string& ledger,
                                   const std::vector<std::string>& ids) {
  std::map<std::string, int> times;
  std::istringstream lines(ReadFile(ledger));
  for (std::string id; lines >> id;) ++times[id];
  for (const std::string& id : ids) {
    const int n = times[id];
    CHECK_MESSAGE(n >= 1, "task " << id << " never ran");
    if (n <= 1) continue;
    const long long lost = tq::test::PgQueryInt(
        uri, "SELECT count(*) FROM attempts WHERE task_id = " + id + " AND reason = 'lost'");
    CHECK_MESSAGE(n <= lost + 1, "task " << id << " ran " << n << " times, lost " << lost);
  }
}

}  // namespace tqtest
