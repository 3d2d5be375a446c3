// Resource units: the names allowed, and the stored spellings of requests and grants.
#include "core/model/unit_use.h"

#include <doctest/doctest.h>

namespace tq {
namespace {

TEST_CASE("ValidResourceName and ValidUnitName") {
  for (const char* good : {"gpu", "a", "licence_2", "x0123456789012345678901234567890"})
    CHECK_MESSAGE(ValidResourceName(good), good);
  for (const char* bad :
       {"", "GPU", "0gpu", "_gpu", "g-pu", "g pu", "gpu=1", "x01234567890123456789012345678901"})
    CHECK_MESSAGE(!ValidResourceName(bad), bad);
  for (const char* good : {"0", "GPU-8f3e2a", "MIG-GPU-1/1/0", "a.b:c_d"})
    CHECK_MESSAGE(ValidUnitName(good), good);
  for (const char* bad : {"", "a,b", "a b", "a=b", "a|b", "\xc3\xa9"})
    CHECK_MESSAGE(!ValidUnitName(bad), bad);
  CHECK(ValidUnitName(std::string(64, 'u')));
  CHECK_FALSE(ValidUnitName(std::string(65, 'u')));
}

TEST_CASE("a unit request spells the same whatever order it was made in, and reads back") {
  const struct {
    UnitRequest request;
    const char* text;
  } cases[] = {
      {{}, ""},
      {{{"gpu", 2}}, "gpu=2"},
      {{{"licence", 1}, {"gpu", 1024}}, "gpu=1024 licence=1"},
  };
  for (const auto& c : cases) {
    CHECK(EncodeUnitRequest(c.request) == c.text);
    CHECK(DecodeUnitRequest(c.text) == c.request);
  }
  for (const char* bad : {"gpu", "gpu=", "gpu=0", "gpu=-1", "gpu=1x", "GPU=1", "gpu=1  a=1",
                          "gpu=1 gpu=2", " gpu=1", "gpu=99999999999"})
    CHECK_MESSAGE(!DecodeUnitRequest(bad), bad);
}

TEST_CASE("a unit grant reads back as it was stored") {
  const struct {
    UnitGrant grant;
    const char* text;
  } cases[] = {
      {{}, ""},
      {{{"gpu", {"1", "3"}}}, "gpu=1,3"},
      {{{"gpu", {"GPU-a/0"}}, {"licence", {"x"}}}, "gpu=GPU-a/0 licence=x"},
  };
  for (const auto& c : cases) {
    CHECK(EncodeUnitGrant(c.grant) == c.text);
    CHECK(DecodeUnitGrant(c.text) == c.grant);
  }
  for (const char* bad : {"gpu", "gpu=", "gpu=1,", "gpu=,1", "gpu=1 gpu=2", "gpu=a b"})
    CHECK_MESSAGE(!DecodeUnitGrant(bad), bad);
}

}  // namespace
}  // namespace tq
