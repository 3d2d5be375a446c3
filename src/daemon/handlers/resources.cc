// `tq resources` (SPEC 14): each resource's units, free or held, and by which task.
#include <map>

#include "daemon/handlers/handlers.h"

namespace tq {

void HandleResources(RequestContext& ctx, ConnId conn, const Owner& peer, const ResourcesRequest&) {
  auto holders = ctx.store.HeldUnits();
  if (!holders.ok()) {
    ctx.server.Send(conn, ErrorResponse(holders.status()));
    return;
  }
  const Access access = ctx.access.For(peer);
  // Each held unit's holder, by resource and unit; erased as the configured units are shown,
  // so what is left is held but no longer configured.
  std::map<std::string, std::map<std::string, const UnitHolder*>> held;
  for (const UnitHolder& h : *holders)
    for (const auto& [resource, units] : h.units)
      for (const std::string& unit : units) held[resource][unit] = &h;
  const auto unit_json = [&](const std::string& name, const UnitHolder* h, bool configured) {
    nlohmann::json task;
    if (h != nullptr && access.Sees(h->owner_uid)) task = h->task;
    return nlohmann::json{
        {"name", name}, {"task", task}, {"in_use", h != nullptr}, {"configured", configured}};
  };
  nlohmann::json out = nlohmann::json::array();
  for (const auto& [resource, units] : ctx.config->unit_pools) {
    auto& of_resource = held[resource];
    nlohmann::json list = nlohmann::json::array();
    int in_use = 0;
    for (const std::string& unit : units) {
      auto it = of_resource.find(unit);
      const UnitHolder* h = it == of_resource.end() ? nullptr : it->second;
      if (h != nullptr) ++in_use;
      list.push_back(unit_json(unit, h, true));
      if (it != of_resource.end()) of_resource.erase(it);
    }
    for (const auto& [unit, h] : of_resource) list.push_back(unit_json(unit, h, false));
    out.push_back({{"name", resource},
                   {"total", units.size()},
                   {"in_use", in_use},
                   {"units", std::move(list)}});
    held.erase(resource);
  }
  // Resources a reload removed while tasks still hold their units.
  for (const auto& [resource, units] : held) {
    if (units.empty()) continue;
    nlohmann::json list = nlohmann::json::array();
    for (const auto& [unit, h] : units) list.push_back(unit_json(unit, h, false));
    out.push_back({{"name", resource}, {"total", 0}, {"in_use", 0}, {"units", std::move(list)}});
  }
  ctx.server.Send(conn, OkResponse({{"resources", std::move(out)}}));
}

}  // namespace tq
