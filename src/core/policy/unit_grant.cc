#include "core/policy/unit_grant.h"

#include <algorithm>
#include <cctype>

namespace tq {

namespace {

// How many of `pool`'s units `held` leaves free.
int FreeCount(const std::vector<std::string>& pool, const std::set<std::string>* held) {
  if (held == nullptr) return static_cast<int>(pool.size());
  return static_cast<int>(std::count_if(pool.begin(), pool.end(),
                                        [&](const std::string& u) { return !held->count(u); }));
}

const std::set<std::string>* HeldOf(const UnitsHeld& held, const std::string& resource) {
  auto it = held.find(resource);
  return it == held.end() ? nullptr : &it->second;
}

}  // namespace

UnitsHeld UnitsHeldBy(const std::vector<UnitHolder>& holders) {
  UnitsHeld held;
  for (const UnitHolder& h : holders)
    for (const auto& [resource, units] : h.units) held[resource].insert(units.begin(), units.end());
  return held;
}

std::optional<UnitGrant> GrantUnits(const UnitRequest& request, const UnitPools& pools,
                                    const UnitsHeld& held) {
  if (!ShortResource(request, pools, held).empty()) return std::nullopt;
  UnitGrant grant;
  for (const auto& [resource, count] : request) {
    const std::set<std::string>* taken = HeldOf(held, resource);
    std::vector<std::string>& units = grant[resource];
    for (const std::string& unit : pools.at(resource)) {
      if (static_cast<int>(units.size()) == count) break;
      if (taken == nullptr || !taken->count(unit)) units.push_back(unit);
    }
  }
  return grant;
}

std::string ShortResource(const UnitRequest& request, const UnitPools& pools,
                          const UnitsHeld& held) {
  for (const auto& [resource, count] : request) {
    auto it = pools.find(resource);
    if (it == pools.end() || FreeCount(it->second, HeldOf(held, resource)) < count) return resource;
  }
  return "";
}

std::vector<std::pair<std::string, std::string>> UnitEnvironment(const UnitGrant& grant) {
  std::vector<std::pair<std::string, std::string>> env;
  for (const auto& [resource, units] : grant) {
    std::string list;
    for (const std::string& unit : units) list += (list.empty() ? "" : ",") + unit;
    std::string name = "TQ_RESOURCE_" + resource;
    std::transform(name.begin(), name.end(), name.begin(),
                   [](unsigned char c) { return static_cast<char>(std::toupper(c)); });
    env.emplace_back(name, list);
    if (resource == "gpu") env.emplace_back("CUDA_VISIBLE_DEVICES", list);
  }
  return env;
}

}  // namespace tq
