#include "cli/web/web_assets.h"

namespace tq {

const WebAssetBytes* FindWebAsset(std::string_view name) {
  for (const WebAssetBytes& a : EmbeddedWebAssets())
    if (a.name == name) return &a;
  return nullptr;
}

std::string_view AssetContentType(std::string_view name) {
  if (name.ends_with(".html")) return "text/html; charset=utf-8";
  if (name.ends_with(".css")) return "text/css; charset=utf-8";
  if (name.ends_with(".js")) return "text/javascript; charset=utf-8";
  if (name.ends_with(".svg")) return "image/svg+xml";
  return "application/octet-stream";
}

}  // namespace tq
