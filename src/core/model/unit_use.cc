#include "core/model/unit_use.h"

#include <charconv>

#include "core/model/quote.h"

namespace tq {

namespace {

// The resources of `pools`, "gpu, licence".
std::string PoolNames(const UnitPools& pools) {
  std::string out;
  for (const auto& [name, units] : pools) out += (out.empty() ? "" : ", ") + name;
  return out;
}

bool IsLowerOrDigit(char c) {
  return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_';
}

// Splits `text` at `sep`; an empty text gives no parts.
std::vector<std::string_view> Split(std::string_view text, char sep) {
  std::vector<std::string_view> parts;
  if (text.empty()) return parts;
  size_t start = 0;
  for (;;) {
    const size_t end = text.find(sep, start);
    parts.push_back(text.substr(start, end - start));
    if (end == std::string_view::npos) return parts;
    start = end + 1;
  }
}

// "name=value" as its two sides, the name a resource's; nullopt otherwise.
std::optional<std::pair<std::string, std::string_view>> NameAndValue(std::string_view part) {
  const size_t eq = part.find('=');
  if (eq == std::string_view::npos) return std::nullopt;
  std::string name(part.substr(0, eq));
  if (!ValidResourceName(name)) return std::nullopt;
  return std::pair{std::move(name), part.substr(eq + 1)};
}

}  // namespace

bool ValidResourceName(std::string_view name) {
  if (name.empty() || name.size() > 32 || name[0] < 'a' || name[0] > 'z') return false;
  for (char c : name)
    if (!IsLowerOrDigit(c)) return false;
  return true;
}

bool ValidUnitName(std::string_view name) {
  if (name.empty() || name.size() > 64) return false;
  for (char c : name) {
    const bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
                    c == '_' || c == '.' || c == ':' || c == '/' || c == '-';
    if (!ok) return false;
  }
  return true;
}

std::string EncodeUnitRequest(const UnitRequest& request) {
  std::string out;
  for (const auto& [name, count] : request) {
    if (!out.empty()) out += ' ';
    out += name + '=' + std::to_string(count);
  }
  return out;
}

std::optional<UnitRequest> DecodeUnitRequest(std::string_view text) {
  UnitRequest request;
  for (std::string_view part : Split(text, ' ')) {
    auto nv = NameAndValue(part);
    if (!nv) return std::nullopt;
    int count = 0;
    const std::string_view v = nv->second;
    auto [end, ec] = std::from_chars(v.data(), v.data() + v.size(), count);
    if (ec != std::errc() || end != v.data() + v.size() || count < 1) return std::nullopt;
    if (!request.emplace(nv->first, count).second) return std::nullopt;
  }
  return request;
}

std::string EncodeUnitGrant(const UnitGrant& grant) {
  std::string out;
  for (const auto& [name, units] : grant) {
    if (!out.empty()) out += ' ';
    out += name + '=';
    for (size_t i = 0; i < units.size(); ++i) out += (i ? "," : "") + units[i];
  }
  return out;
}

std::optional<UnitGrant> DecodeUnitGrant(std::string_view text) {
  UnitGrant grant;
  for (std::string_view part : Split(text, ' ')) {
    auto nv = NameAndValue(part);
    if (!nv) return std::nullopt;
    std::vector<std::string> units;
    for (std::string_view unit : Split(nv->second, ',')) {
      if (!ValidUnitName(unit)) return std::nullopt;
      units.emplace_back(unit);
    }
    if (units.empty() || !grant.emplace(nv->first, std::move(units)).second) return std::nullopt;
  }
  return grant;
}

Status CheckUnitRequest(const UnitRequest& request, const UnitPools& pools) {
  for (const auto& [resource, count] : request) {
    auto it = pools.find(resource);
    if (it == pools.end()) {
      return Status::Invalid(
          "use", "use: " + Quote(resource) + " is not a resource of this daemon (" +
                     (pools.empty() ? std::string("tqd.toml names none in [resources]")
                                    : "tqd.toml's [resources] names " + PoolNames(pools)) +
                     ")");
    }
    const int exist = static_cast<int>(it->second.size());
    if (count < 1 || count > exist) {
      return Status::Invalid(
          "use", "use: " + resource + "=" + std::to_string(count) + ": " +
                     (count < 1 ? "ask for 1 or more units"
                                : "only " + std::to_string(exist) + " unit" +
                                      (exist == 1 ? "" : "s") + " of " + resource + " exist"));
    }
  }
  return Status::Ok();
}

}  // namespace tq
