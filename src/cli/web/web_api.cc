#include "cli/web/web_api.h"

#include <set>

#include "cli/client.h"
#include "core/proto/bounded_json.h"
#include "core/proto/protocol.h"

namespace tq {

namespace {

using nlohmann::json;

// Requests that only look.
const std::set<std::string, std::less<>> kReadTypes = {"status", "list",      "jobs", "stats",
                                                       "hosts",  "resources", "logs", "queue"};
// Requests that change something, as the console's buttons make them.
const std::set<std::string, std::less<>> kChangeTypes = {"cancel", "retry",   "clean",     "hold",
                                                         "queue",  "job_run", "job_enable"};

constexpr int kKeepaliveMs = 15000;  // a comment on a quiet event stream, so proxies keep it
constexpr int kStopCheckMs = 500;    // how often a stream looks whether the server stops

int HttpStatusOf(ErrorCode code) {
  switch (code) {
    case ErrorCode::kOk:
      return 200;
    case ErrorCode::kInvalid:
    case ErrorCode::kLimit:
    case ErrorCode::kSuperseded:
      return 400;
    case ErrorCode::kPermission:
      return 403;
    case ErrorCode::kNotFound:
      return 404;
    case ErrorCode::kUnavailable:
    case ErrorCode::kProto:
      return 502;
    case ErrorCode::kConfig:
    case ErrorCode::kInternal:
      return 500;
  }
  return 500;
}

HttpResponse Json(int status, const json& body) {
  HttpResponse r;
  r.status = status;
  r.content_type = "application/json";
  r.body = WireText(body);
  return r;
}

HttpResponse Error(const Status& st) {
  return Json(HttpStatusOf(st.code()), ErrorResponse(st));
}

// The request body as the API got it: the q argument of a GET, the body of a POST.
Result<json> BodyOf(const HttpRequest& request) {
  std::string text = "{}";
  if (request.method == "POST") {
    if (!request.body.empty()) text = request.body;
  } else if (auto q = request.query.find("q"); q != request.query.end()) {
    text = q->second;
  }
  auto body = ParseBoundedJson(text);  // as deep and as large as tqd takes, no more
  if (!body.ok()) return body.status();
  if (!body->is_object()) return Status::Invalid("body", "body: the request must be a JSON object");
  return body;
}

}  // namespace

Result<Client> ConnectTqd(const WebApiContext& ctx) {
  auto client = Client::Connect(ctx.tqd_socket);
  if (client.ok()) client->ActAs(ctx.as_user);
  return client;
}

HttpResponse CallApi(const WebApiContext& ctx, const HttpRequest& request,
                     const std::string& type) {
  const bool change = request.method == "POST";
  if (!change && request.method != "GET")
    return Error(Status::Invalid("method", "method: " + request.method + " is not served"));
  if (change && ctx.read_only)
    return Error(Status(ErrorCode::kPermission, "", "this console is read-only (--read-only)"));
  if (!(change ? kChangeTypes : kReadTypes).contains(type))
    return Error(Status(
        ErrorCode::kNotFound, "type",
        "type: " + type + " is not a " + (change ? "change" : "read") + " the console makes"));
  auto body = BodyOf(request);
  if (!body.ok()) return Error(body.status());
  // Only listing queues is a read; a queue change is a POST. (A field of the wrong type is left
  // to tqd's decoder, which names it.)
  const json action = body->value("action", json("list"));
  if (type == "queue" && action.is_string() && (action == "list") == change)
    return Error(Status::Invalid(
        "action", change ? "action: listing queues is a GET" : "action: a queue change is a POST"));
  if (type == "logs" && body->value("follow", json(false)) == true)
    return Error(Status::Invalid("follow", "follow: the console follows output by polling"));
  (*body)["proto"] = kProtoVersion;
  (*body)["type"] = type;
  auto decoded = DecodeRequest(body->dump());
  if (!decoded.ok()) return Error(decoded.status());
  auto client = ConnectTqd(ctx);
  if (!client.ok()) return Error(client.status());
  if (Status sent = client->Send(*decoded); !sent.ok()) return Error(sent);
  // A cancel reports the tasks it is stopping before its answer.
  auto frame = client->Read();
  while (frame.ok() && frame->contains("stopping")) frame = client->Read();
  if (!frame.ok()) return Error(frame.status());
  return Json(HttpStatusOf(ResponseStatus(*frame).code()), *frame);
}

HttpResponse EventStream(const WebApiContext& ctx) {
  auto client = ConnectTqd(ctx);
  if (!client.ok()) return Error(client.status());
  EventsRequest request;
  request.follow = true;
  if (Status sent = client->Send(request); !sent.ok()) return Error(sent);
  HttpResponse r;
  r.content_type = "text/event-stream";
  r.headers.emplace_back("X-Accel-Buffering", "no");  // nginx passes each event at once
  auto shared = std::make_shared<Client>(std::move(*client));
  r.stream = [shared, quiet_ms = 0, started = false](
                 const std::atomic<bool>& stopping) mutable -> std::optional<std::string> {
    if (!started) {
      started = true;
      return std::string("retry: 2000\n\n");  // how soon the browser connects again
    }
    while (!stopping) {
      if (!shared->Readable(kStopCheckMs)) {
        quiet_ms += kStopCheckMs;
        if (quiet_ms < kKeepaliveMs) continue;
        quiet_ms = 0;
        return std::string(": quiet\n\n");
      }
      quiet_ms = 0;
      auto text = shared->ReadText();
      if (!text.ok()) return std::nullopt;  // tqd went away: the browser connects again
      return "data: " + *text + "\n\n";
    }
    return std::nullopt;
  };
  return r;
}

}  // namespace tq
