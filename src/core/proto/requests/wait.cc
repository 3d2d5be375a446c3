#include "core/proto/requests/wait.h"

#include <utility>

namespace tq {

using nlohmann::json;

Result<WaitRequest> DecodeWait(const json& j) {
  auto select = ReadSelector(j, AnyState(), "wait");
  if (!select.ok()) return select.status();
  if (Status st = NeedsSome(*select); !st.ok()) return st;
  return WaitRequest{std::move(*select)};
}
json EncodeWait(const WaitRequest& r) {
  json j = json::object();
  WriteSelector(r.select, j);
  return j;
}

}  // namespace tq
