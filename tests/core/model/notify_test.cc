#include "core/model/notify.h"

#include <doctest/doctest.h>

namespace tq {
namespace {

TEST_CASE("CheckMailto takes addresses and refuses what could become a header or an option") {
  struct Case {
    const char* mailto;
    bool ok;
  };
  const Case cases[] = {
      {"", true},
      {"ops@example.com", true},
      {"ops@example.com,dev@example.com", true},
      {"ops@example.com, dev@example.com", true},
      {"root", true},
      {"ops@example.com\nBcc: x@y", false},
      {"ops@example.com\r", false},
      {"-oQ/tmp/x", false},
      {"a b@example.com", false},
      {"ops@example.com,", false},
      {",ops@example.com", false},
      {"Ops <ops@example.com>", false},
      {"\"ops\"@example.com", false},
      {"\xc3\xa9@example.com", false},
  };
  for (const Case& c : cases) {
    CAPTURE(c.mailto);
    const Status st = CheckMailto("mailto", c.mailto);
    CHECK(st.ok() == c.ok);
    if (!st.ok()) {
      CHECK(st.field() == "mailto");
      CHECK(st.message().starts_with("mailto: "));
    }
  }
}

TEST_CASE("CheckMailto refuses a list past its limit") {
  const std::string many(kMaxMailtoBytes + 1, 'a');
  CHECK_FALSE(CheckMailto("mailto", many).ok());
}

TEST_CASE("CheckHook takes 1 to kMaxHookBytes bytes without NUL") {
  CHECK(CheckHook("on_failure", "echo failed").ok());
  CHECK(CheckHook("on_failure", std::string(kMaxHookBytes, 'x')).ok());
  const Status empty = CheckHook("on_failure", "");
  CHECK_FALSE(empty.ok());
  CHECK(empty.field() == "on_failure");
  CHECK_FALSE(CheckHook("on_success", std::string(kMaxHookBytes + 1, 'x')).ok());
  CHECK_FALSE(CheckHook("on_finish", std::string("a\0b", 3)).ok());
}

TEST_CASE("MailOn names round-trip") {
  for (MailOn m : {MailOn::kFailure, MailOn::kAlways}) CHECK(MailOnFromName(MailOnName(m)) == m);
  CHECK_FALSE(MailOnFromName("never").has_value());
}

}  // namespace
}  // namespace tq
