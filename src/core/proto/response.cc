#include "core/proto/response.h"

namespace tq {

using nlohmann::json;

json OkResponse(json body) {
  body["ok"] = true;
  return body;
}

std::string WireText(const json& message) {
  return message.dump(-1, ' ', false, json::error_handler_t::replace);
}

std::string OkResponseText(json body, std::string_view key, const std::vector<std::string>& items) {
  std::string text = WireText(OkResponse(std::move(body)));
  text.pop_back();  // the object's closing brace: `key` goes last
  text += ',';
  text += WireText(json(key));
  text += ":[";
  for (size_t i = 0; i < items.size(); ++i) {
    if (i > 0) text += ',';
    text += items[i];
  }
  text += "]}";
  return text;
}

json ErrorResponse(const Status& status) {
  json error{{"code", ErrorCodeName(status.code())},
             {"field", status.field()},
             {"message", status.message()}};
  if (status.fault() == StoreFault::kTransient) error["transient"] = true;
  return json{{"ok", false}, {"error", std::move(error)}};
}

Status ResponseStatus(const json& response) {
  if (!response.is_object()) return Status::Internal("the daemon sent a malformed response");
  if (response.value("ok", false)) return Status::Ok();
  const json err = response.value("error", json::object());
  if (!err.is_object()) return Status::Internal("the daemon sent a malformed error");
  Status status(ErrorCodeFromName(err.value("code", "internal")), err.value("field", ""),
                err.value("message", "unknown error"));
  const json transient = err.value("transient", json(false));
  if (transient.is_boolean() && transient.get<bool>())
    return std::move(status).WithFault(StoreFault::kTransient);
  return status;
}

}  // namespace tq
