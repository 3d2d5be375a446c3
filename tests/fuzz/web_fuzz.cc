// libFuzzer target for what `tq web` does with a request once libmicrohttpd has parsed it: the
// console's routing, its sign-in, session and CSRF checks, the API's reading of a body or a q
// argument through tqd's decoder, and the plain pages' reading of their address. No tqd listens
// at the console's socket, so every request that passes the checks ends at "tqd unreachable".
// Checks what must always hold: nothing but /login answers without the session, no change
// passes without the CSRF token, every answer has a status and a type, and the console's page
// never carries an unfilled {{placeholder}}. Build with -DTQ_FUZZ=ON and clang; see README
// "Fuzzing".
//
// Input: lines. The first byte's bits choose whether the request carries the session cookie
// and the CSRF token (so the fuzzer reaches past the checks); then the method, the path, and
// "key=value" lines: query arguments, or headers as "h:name=value", until a line "--", after
// which the rest is the body.
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>

#include "cli/web/web_console.h"

namespace {

constexpr const char* kLogin = "fuzz-login-token-0123456789";
constexpr int kPort = 8377;

[[noreturn]] void Fail(const char* what, std::string_view detail = "") {
  std::fprintf(stderr, "web_fuzz: %s %.*s\n", what, static_cast<int>(detail.size()), detail.data());
  std::abort();
}

// The next line of `input` from `pos` (without its newline); moves `pos` past it.
std::string_view Line(std::string_view input, size_t& pos) {
  if (pos >= input.size()) {
    pos = input.size();
    return {};
  }
  const size_t end = std::min(input.find('\n', pos), input.size());
  const std::string_view line = input.substr(pos, end - pos);
  pos = end + 1;
  return line;
}

// The session cookie's value that WebAccess::SessionCookie sets.
std::string SessionOf(const tq::WebAccess& access) {
  const std::string cookie = access.SessionCookie();
  const size_t eq = cookie.find('=');
  return cookie.substr(eq + 1, cookie.find(';') - eq - 1);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static const tq::WebAccess access = [] {
    auto a = tq::WebAccess::Make(kLogin, kPort);
    if (!a.ok()) Fail("no access:", a.status().message());
    return *a;
  }();
  static const tq::WebConsole console(access, tq::WebApiContext{"/nonexistent/tq.sock", false, {}});
  if (size == 0) return 0;
  const std::string_view input(reinterpret_cast<const char*>(data) + 1, size - 1);
  const bool with_session = (data[0] & 1) != 0, with_csrf = (data[0] & 2) != 0;

  tq::HttpRequest request;
  size_t pos = 0;
  request.method = Line(input, pos);
  request.path = Line(input, pos);
  while (pos < input.size()) {
    const std::string_view line = Line(input, pos);
    if (line == "--") {
      if (pos < input.size()) request.body = input.substr(pos);
      break;
    }
    const size_t eq = line.find('=');
    const std::string_view key = line.substr(0, eq);
    const std::string value(eq == std::string_view::npos ? "" : line.substr(eq + 1));
    if (key.starts_with("h:"))
      request.headers[std::string(key.substr(2))] = value;
    else
      request.query[std::string(key)] = value;
  }
  if (with_session) request.cookies["tq_session_" + std::to_string(kPort)] = SessionOf(access);
  if (with_csrf) request.headers["x-csrf-token"] = access.csrf();

  const tq::HttpResponse r = console.Handle(request);
  if (r.status < 200 || r.status > 599) Fail("a status out of range:", std::to_string(r.status));
  if (r.content_type.empty()) Fail("an answer without a type");
  // The console's page (the one document with placeholders) echoes nothing of the request.
  if (r.body.find("name=\"tq-csrf\"") != std::string::npos &&
      r.body.find("{{") != std::string::npos)
    Fail("a placeholder left in:", request.path);
  const bool known_method = request.method == "GET" || request.method == "POST";
  const bool login = request.path == "/login";
  if (known_method && !login && !access.SignedIn(request) && r.status != 401)
    Fail("answered without the session:", request.path);
  if (r.status < 300 && request.method == "POST" && !access.CsrfMatches(request))
    Fail("a change without the CSRF token:", request.path);
  if (r.status < 400 && login && !access.LoginMatches(request.query["token"]))
    Fail("signed in without the token");
  if (r.stream) Fail("a stream opened without tqd:", request.path);
  return 0;
}
