// libFuzzer target for what `tq web` does with a request once libmicrohttpd has parsed it: the
// console's routing, its sign-in, session and CSRF checks, the API's reading of a body or a q
// argument through tqd's decoder, and the plain pages' reading of their address. No tqd listens
// at the console's socket, so every request that passes the checks ends at "tqd unreachable".
// Checks what must always hold: nothing but /login answers without a session its peer may use
// (a replay from another local user gets nothing), no change passes without the CSRF token, every
// answer has a status and a type, and the console's page never carries an unfilled {{placeholder}}.
// Build with -DTQ_FUZZ=ON and clang; see README "Fuzzing".
//
// Input: lines. The first byte's bits choose whether the request carries the session cookie
// and the CSRF token (so the fuzzer reaches past the checks), whether it comes from the user who
// signed in or another, and whether it names the console in its Host; then the method, the path,
// and "key=value" lines: query arguments, or headers as "h:name=value", until a line "--", after
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

// The local user who signed in, and another.
tq::HttpPeer LocalUser(uid_t uid) {
  tq::HttpPeer peer;
  peer.local = true;
  peer.uid = uid;
  peer.address = "127.0.0.1";
  return peer;
}

// The console, and the session its user signed in to (a sign-in with a file's token, which
// stays valid).
struct Signed {
  tq::WebAccess* access = nullptr;
  tq::WebConsole* console = nullptr;
  tq::WebSession session;
};

Signed& TheConsole() {
  static Signed s = [] {
    tq::ListenAddress address = tq::DefaultListenAddress();
    address.port = kPort;
    auto a = tq::WebAccess::Make(kLogin, address, false);
    if (!a.ok()) Fail("no access:", a.status().message());
    Signed made;
    made.access = a->get();
    auto session = made.access->SignIn(kLogin, LocalUser(1000));
    if (!session) Fail("no session");
    made.session = *session;
    made.console =
        new tq::WebConsole(std::move(*a), tq::WebApiContext{"/nonexistent/tq.sock", false, {}});
    return made;
  }();
  return s;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  Signed& signed_in = TheConsole();
  tq::WebAccess& access = *signed_in.access;
  const tq::WebConsole& console = *signed_in.console;
  if (size == 0) return 0;
  const std::string_view input(reinterpret_cast<const char*>(data) + 1, size - 1);
  const bool with_session = (data[0] & 1) != 0, with_csrf = (data[0] & 2) != 0,
             other_user = (data[0] & 4) != 0, no_host = (data[0] & 8) != 0;

  tq::HttpRequest request;
  request.peer = LocalUser(other_user ? 1001 : 1000);
  if (!no_host) request.headers["host"] = "127.0.0.1:" + std::to_string(kPort);
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
  if (with_session) request.cookies["tq_session_" + std::to_string(kPort)] = signed_in.session.id;
  if (with_csrf) request.headers["x-csrf-token"] = signed_in.session.csrf;
  const std::string login_before = access.login();
  const bool session_usable = access.SessionOf(request).has_value();

  const tq::HttpResponse r = console.Handle(request);
  if (r.status < 200 || r.status > 599) Fail("a status out of range:", std::to_string(r.status));
  if (r.content_type.empty()) Fail("an answer without a type");
  // The console's page (the one document with placeholders) echoes nothing of the request.
  if (r.body.find("name=\"tq-csrf\"") != std::string::npos &&
      r.body.find("{{") != std::string::npos)
    Fail("a placeholder left in:", request.path);
  const bool login = request.path == "/login";
  if (!login && !session_usable && r.status < 400)
    Fail("answered without a session its peer may use:", request.path);
  if (other_user && with_session && session_usable) Fail("another user's replay was taken");
  if (!access.HostAllowed(request) && r.status < 400) Fail("answered another Host:", request.path);
  const auto csrf = request.headers.find("x-csrf-token");
  if (r.status < 300 && request.method == "POST" &&
      (csrf == request.headers.end() || csrf->second != signed_in.session.csrf))
    Fail("a change without the CSRF token:", request.path);
  if (r.status < 400 && login && request.query["token"] != login_before)
    Fail("signed in without the token");
  // The input may have signed the fuzzer's session out (or crowded it out with sign-ins): later
  // inputs get a new one.
  tq::HttpRequest probe;
  probe.peer = LocalUser(1000);
  probe.cookies["tq_session_" + std::to_string(kPort)] = signed_in.session.id;
  if (!access.SessionOf(probe).has_value()) {
    auto again = access.SignIn(kLogin, probe.peer);
    if (!again) Fail("no session again");
    signed_in.session = *again;
  }
  if (r.stream) Fail("a stream opened without tqd:", request.path);
  return 0;
}
