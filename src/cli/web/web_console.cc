#include "cli/web/web_console.h"

#include <memory>

#include "cli/web/plain_pages.h"
#include "cli/web/web_assets.h"
#include "core/proto/response.h"

namespace tq {

namespace {

// At most this many event streams at once (tqd serves 64 connections per user).
constexpr int kMaxEventStreams = 16;

// Counts one open event stream for as long as it lives.
class StreamSlot {
 public:
  explicit StreamSlot(std::atomic<int>& open) : open_(open) { ++open_; }
  ~StreamSlot() { --open_; }
  StreamSlot(const StreamSlot&) = delete;
  StreamSlot& operator=(const StreamSlot&) = delete;

 private:
  std::atomic<int>& open_;
};

HttpResponse Text(int status, std::string content_type, std::string body) {
  HttpResponse r;
  r.status = status;
  r.content_type = std::move(content_type);
  r.body = std::move(body);
  return r;
}

// A refusal: tqd's error form for the API, a short page for a browser.
HttpResponse Refusal(const HttpRequest& request, int status, ErrorCode code,
                     const std::string& why) {
  if (request.path.starts_with("/api/"))
    return Text(status, "application/json", WireText(ErrorResponse(Status(code, "", why))));
  return Text(status, "text/html; charset=utf-8",
              "<!doctype html><title>tq</title><h1>tq web</h1><p>" + why + "</p>\n");
}

// Whether `type` is spelled as a request type: a-z and _.
bool RequestTypeText(std::string_view type) {
  if (type.empty() || type.size() > 32) return false;
  for (char c : type)
    if ((c < 'a' || c > 'z') && c != '_') return false;
  return true;
}

// The pages the console's script draws; each is the same document.
bool PagePath(std::string_view path) {
  return path == "/" || path == "/tasks" || path == "/jobs" || path == "/hosts" ||
         path.starts_with("/tasks/") || path.starts_with("/jobs/");
}

// The plain page (no JavaScript) showing what the console page at `path` shows.
std::string PlainPathFor(std::string_view path) {
  if (path.starts_with("/jobs")) return "/plain/jobs";
  if (!path.starts_with("/tasks")) return "/plain";
  const std::string_view id = path.substr(std::min(path.size(), sizeof("/tasks/") - 1));
  const bool numeric = !id.empty() && id.size() <= 19 &&
                       id.find_first_not_of("0123456789") == std::string_view::npos;
  return numeric ? "/plain/tasks/" + std::string(id) : "/plain/tasks";
}

// `text` with every `from` replaced by `to`.
std::string ReplaceAll(std::string text, std::string_view from, std::string_view to) {
  for (size_t at = text.find(from); at != std::string::npos; at = text.find(from, at + to.size()))
    text.replace(at, from.size(), to);
  return text;
}

}  // namespace

WebConsole::WebConsole(std::unique_ptr<WebAccess> access, WebApiContext api)
    : access_(std::move(access)), api_(std::move(api)) {}

HttpResponse WebConsole::Handle(const HttpRequest& original) const {
  // HEAD is a GET whose body the server leaves out.
  HttpRequest head_as_get;
  const bool head = original.method == "HEAD";
  if (head) {
    head_as_get = original;
    head_as_get.method = "GET";
  }
  const HttpRequest& request = head ? head_as_get : original;
  if (request.method != "GET" && request.method != "POST") {
    HttpResponse r = Text(405, "text/plain; charset=utf-8", "only GET, HEAD and POST are served\n");
    r.headers.emplace_back("Allow", "GET, HEAD, POST");
    return r;
  }
  // A page of another site whose name was made to point here (DNS rebinding) sends its own name.
  if (!access_->HostAllowed(request))
    return Refusal(request, 400, ErrorCode::kInvalid,
                   "The Host header does not name this console; open it at the address tq web "
                   "printed.");
  if (request.path == "/login") return Login(request);
  WebApiContext api = api_;
  std::string csrf;
  if (access_->BehindProxy()) {
    api.as_user = access_->ProxyUser(request);
    if (!api.as_user)
      return Refusal(request, 401, ErrorCode::kPermission,
                     "This console takes its user from the " + access_->proxy_header() +
                         " header its proxy sets; the request has no user name there.");
    auto made = access_->ProxyCsrf(*api.as_user);
    if (!made.ok()) return Refusal(request, 500, ErrorCode::kInternal, made.status().message());
    csrf = *made;
  } else if (const std::optional<WebSession> session = access_->SessionOf(request)) {
    csrf = session->csrf;
  } else {
    return Refusal(request, 401, ErrorCode::kPermission,
                   "Sign in with the address tq web printed (a session lasts 12 hours, and "
                   "serves only the local user who signed in).");
  }
  if (request.method == "POST") {
    const auto sent = request.headers.find("x-csrf-token");
    if (sent == request.headers.end() || !SameSecret(sent->second, csrf))
      return Refusal(request, 403, ErrorCode::kPermission,
                     "A change needs the console's CSRF token.");
  }
  if (request.path == "/logout") return Logout(request);
  if (request.path == "/api/events") return Events(api, request);
  if (request.path.starts_with("/api/")) {
    const std::string type = request.path.substr(5);
    if (!RequestTypeText(type)) return Refusal(request, 404, ErrorCode::kNotFound, "No such call.");
    return CallApi(api, request, type);
  }
  if (request.method != "GET")
    return Refusal(request, 405, ErrorCode::kInvalid, "Pages are read with GET.");
  if (request.path.starts_with("/assets/")) {
    const WebAssetBytes* asset = FindWebAsset(request.path.substr(8));
    if (asset == nullptr || asset->name == "console.html")
      return Refusal(request, 404, ErrorCode::kNotFound, "No such file.");
    return Text(200, std::string(AssetContentType(asset->name)), std::string(asset->bytes));
  }
  if (PlainPath(request.path)) return PlainPage(api, request);
  if (PagePath(request.path)) return Page(request.path, csrf);
  return Refusal(request, 404, ErrorCode::kNotFound, "No such page.");
}

HttpResponse WebConsole::Login(const HttpRequest& request) const {
  if (access_->BehindProxy())
    return Refusal(request, 404, ErrorCode::kNotFound,
                   "This console signs users in through its proxy: open / instead.");
  const auto token = request.query.find("token");
  std::optional<WebSession> session;
  if (request.method == "GET" && token != request.query.end())
    session = access_->SignIn(token->second, request.peer);
  if (!session)
    return Refusal(request, 403, ErrorCode::kPermission,
                   "That is not this console's sign-in token (a printed one signs in once; tq "
                   "web prints the next).");
  HttpResponse r = Text(303, "text/plain; charset=utf-8", "signed in\n");
  r.headers.emplace_back("Set-Cookie", access_->SessionCookie(*session));
  r.headers.emplace_back("Location", "/");
  return r;
}

HttpResponse WebConsole::Logout(const HttpRequest& request) const {
  if (request.method != "POST" || access_->BehindProxy())
    return Refusal(
        request, 405, ErrorCode::kInvalid,
        access_->BehindProxy() ? "This console's proxy signs users out." : "Sign out is a POST.");
  access_->SignOut(request);
  HttpResponse r = Text(200, "application/json", "{\"ok\":true}");
  r.headers.emplace_back("Set-Cookie", access_->ClearedCookie());
  return r;
}

HttpResponse WebConsole::Events(const WebApiContext& api, const HttpRequest& request) const {
  if (request.method != "GET")
    return Refusal(request, 405, ErrorCode::kInvalid, "The event stream is a GET.");
  auto slot = std::make_shared<StreamSlot>(open_streams_);
  if (open_streams_ > kMaxEventStreams)
    return Refusal(
        request, 503, ErrorCode::kLimit,
        "Too many live pages are open (" + std::to_string(kMaxEventStreams) + "); close some.");
  HttpResponse r = EventStream(api);
  if (r.stream)
    r.stream = [inner = std::move(r.stream), slot](const std::atomic<bool>& stopping) {
      return inner(stopping);
    };
  return r;
}

HttpResponse WebConsole::Page(std::string_view path, const std::string& csrf) const {
  const WebAssetBytes* page = FindWebAsset("console.html");
  std::string html = ReplaceAll(std::string(page->bytes), "{{csrf}}", csrf);
  html = ReplaceAll(std::move(html), "{{plain}}", PlainPathFor(path));
  html = ReplaceAll(std::move(html), "{{read_only}}", api_.read_only ? "true" : "false");
  html = ReplaceAll(std::move(html), "{{sign_out}}", access_->BehindProxy() ? "false" : "true");
  return Text(200, "text/html; charset=utf-8", std::move(html));
}

}  // namespace tq
