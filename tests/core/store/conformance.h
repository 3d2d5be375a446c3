// The store's conformance suite: test cases written against the Store interface, run once per
// registered backend. A backend registers a factory of fresh, empty stores (see
// sqlite/sqlite_backend_test.cc); a second backend runs the same cases unchanged.
#pragma once

#include <doctest/doctest.h>

#include <functional>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "core/store/store.h"

namespace tq::test {

/// Two stores over one database, as the tqd of two hosts open it.
using StorePair = std::pair<std::unique_ptr<Store>, std::unique_ptr<Store>>;

/// A backend of the conformance suite: its name and how to make a fresh, empty store of it, and
/// two stores over one fresh, empty database.
struct StoreBackend {
  std::string name;
  std::function<std::unique_ptr<Store>()> make;
  std::function<StorePair()> make_pair;
};

/// Every registered backend, in registration order.
inline std::vector<StoreBackend>& StoreBackends() {
  static std::vector<StoreBackend> backends;
  return backends;
}

/// Registers a backend; call it from a static initialiser (the result is only for that).
inline bool RegisterStoreBackend(std::string name, std::function<std::unique_ptr<Store>()> make,
                                 std::function<StorePair()> make_pair) {
  StoreBackends().push_back({std::move(name), std::move(make), std::move(make_pair)});
  return true;
}

/// The backend whose subcase runs now.
inline const StoreBackend*& CurrentBackend() {
  static const StoreBackend* current = nullptr;
  return current;
}

/// A fresh, empty store of the backend under test; REQUIREs that one is.
inline std::unique_ptr<Store> OpenStore() {
  REQUIRE(CurrentBackend() != nullptr);
  std::unique_ptr<Store> store = CurrentBackend()->make();
  REQUIRE(store != nullptr);
  return store;
}

/// Two stores over one fresh, empty database of the backend under test; REQUIREs them.
inline StorePair OpenStorePair() {
  REQUIRE(CurrentBackend() != nullptr);
  StorePair stores = CurrentBackend()->make_pair();
  REQUIRE(stores.first != nullptr);
  REQUIRE(stores.second != nullptr);
  return stores;
}

/// Runs `body` once per backend, each in a subcase named after it.
inline void ForEachBackend(void (*body)()) {
  REQUIRE_FALSE(StoreBackends().empty());
  for (const StoreBackend& backend : StoreBackends()) {
    SUBCASE(backend.name.c_str()) {
      CurrentBackend() = &backend;
      body();
      CurrentBackend() = nullptr;
    }
  }
}

}  // namespace tq::test

/// A test case of the store's contract: its body runs once per backend, OpenStore() giving
/// stores of that backend.
#define STORE_TEST_CASE(name) TQ_STORE_TEST_CASE_IMPL(name, DOCTEST_ANONYMOUS(TQ_STORE_TEST_))
#define TQ_STORE_TEST_CASE_IMPL(name, body) \
  static void body();                       \
  TEST_CASE(name) {                         \
    ::tq::test::ForEachBackend(body);       \
  }                                         \
  static void body()
