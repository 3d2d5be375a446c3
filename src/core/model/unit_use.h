// Resource units (SPEC 14): the countable things tqd.toml's [resources] names (GPUs, licences),
// what a task asks of them and what an attempt holds, with their stored spellings.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/model/status.h"

namespace tq {

/// Each resource's units by name, in the order they are handed out ("gpu" -> "0", "1", ...).
using UnitPools = std::map<std::string, std::vector<std::string>>;
/// What a task asks for: how many units of each resource ("gpu" -> 2).
using UnitRequest = std::map<std::string, int>;
/// What an attempt holds: the names of its units of each resource ("gpu" -> "0", "2").
using UnitGrant = std::map<std::string, std::vector<std::string>>;

/// The most units one resource may have, and the most resources tqd.toml may name.
inline constexpr int kMaxUnitsPerResource = 1024;
inline constexpr int kMaxResources = 64;

/// Whether `name` may name a resource: 1 to 32 characters from a-z 0-9 _, a letter first (it
/// becomes TQ_RESOURCE_NAME in the task's environment).
bool ValidResourceName(std::string_view name);
/// What ValidResourceName allows, for refusals.
inline constexpr const char* kResourceNameHelp =
    "use 1 to 32 characters from a-z 0-9 _, starting with a letter";
/// Whether `name` may name a unit: 1 to 64 characters from A-Z a-z 0-9 _ . : / - (GPU indexes
/// and UUIDs; never a comma, which separates units in the environment).
bool ValidUnitName(std::string_view name);
inline constexpr const char* kUnitNameHelp = "use 1 to 64 characters from A-Z a-z 0-9 _ . : / -";

/// "gpu=2 licence=1": the stored and compared spelling of a request (resources in name order,
/// so equal requests spell the same); "" for none.
std::string EncodeUnitRequest(const UnitRequest& request);
/// The request `text` spells; nullopt when it is not one EncodeUnitRequest made.
std::optional<UnitRequest> DecodeUnitRequest(std::string_view text);
/// "gpu=0,2 licence=1": the stored spelling of a grant; "" for none.
std::string EncodeUnitGrant(const UnitGrant& grant);
/// The grant `text` spells; nullopt when it is not one EncodeUnitGrant made.
std::optional<UnitGrant> DecodeUnitGrant(std::string_view text);

/// Refuses (kInvalid, field "use") a request for a resource `pools` does not name, or for more
/// units than the resource has, naming it and what exists.
Status CheckUnitRequest(const UnitRequest& request, const UnitPools& pools);

}  // namespace tq
