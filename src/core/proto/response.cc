#include "core/proto/response.h"

namespace tq {

using nlohmann::json;

json OkResponse(json body) {
  body["ok"] = true;
  return body;
}

json ErrorResponse(const Status& status) {
  return json{{"ok", false},
              {"error",
               {{"code", ErrorCodeName(status.code())},
                {"field", status.field()},
                {"message", status.message()}}}};
}

Status ResponseStatus(const json& response) {
  if (!response.is_object()) return Status::Internal("the daemon sent a malformed response");
  if (response.value("ok", false)) return Status::Ok();
  const json err = response.value("error", json::object());
  if (!err.is_object()) return Status::Internal("the daemon sent a malformed error");
  return Status(ErrorCodeFromName(err.value("code", "internal")), err.value("field", ""),
                err.value("message", "unknown error"));
}

}  // namespace tq
