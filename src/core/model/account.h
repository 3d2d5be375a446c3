// A user account as the password and group databases describe it: whom the system daemon runs a
// task as (SPEC 8).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace tq {

/// The identity a task runs with and the account facts its environment carries.
struct Account {
  uint32_t uid = 0;
  uint32_t gid = 0;              ///< the primary group, from the password database
  std::vector<uint32_t> groups;  ///< every group of the account (getgrouplist), gid included
  std::string name;
  std::string home;
  std::string shell;
};

}  // namespace tq
