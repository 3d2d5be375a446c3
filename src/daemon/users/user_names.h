// User names for peer uids, looked up lazily and remembered for a while: a name-service lookup
// (NSS may ask LDAP over the network) must not run for every connection.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <unordered_map>

#include "core/model/clock.h"

namespace tq {

/// The name of `uid` from the password database, or the number when it has none.
std::string LookUpUserName(uint32_t uid);

/// Remembers each uid's name for `ttl_ms`; at most one lookup per uid per ttl.
class UserNameCache {
 public:
  using Resolver = std::function<std::string(uint32_t uid)>;

  UserNameCache(const Clock& clock, int64_t ttl_ms, Resolver resolve = LookUpUserName)
      : clock_(clock), ttl_ms_(ttl_ms), resolve_(std::move(resolve)) {}

  /// The name of `uid`, looked up when it is not known or older than the ttl.
  const std::string& Name(uint32_t uid);

 private:
  struct Entry {
    std::string name;
    MonoMs looked_up = 0;
  };

  const Clock& clock_;
  int64_t ttl_ms_;
  Resolver resolve_;
  std::unordered_map<uint32_t, Entry> entries_;
};

}  // namespace tq
