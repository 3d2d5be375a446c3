// What the PostgreSQL store's tests of several hosts share: a store joined as a host.
#pragma once

#include <doctest/doctest.h>

#include <memory>
#include <string>

#include "core/store/postgres/open.h"

namespace tq::test {

/// A store on `conninfo`, joined as host `host` (max_running 4, at 1000).
inline std::unique_ptr<Store> MustJoin(const std::string& conninfo, const std::string& host) {
  Result<std::unique_ptr<Store>> store = OpenPostgresStore(conninfo, false);
  REQUIRE_MESSAGE(store.ok(), store.status().message());
  Status joined = (*store)->JoinHost(host, "0.1.0", 4, 1000);
  REQUIRE_MESSAGE(joined.ok(), joined.message());
  return std::move(*store);
}

}  // namespace tq::test
