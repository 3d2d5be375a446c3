// The retry request's "succeeded" (tq retry --succeeded): it round-trips, and only with it may the
// filters name succeeded or expired tasks.
#include <doctest/doctest.h>

#include "core/proto/protocol.h"

namespace tq {
namespace {

TEST_CASE("a retry request's succeeded flag round-trips and opens the succeeded states") {
  RetryRequest by_id;
  by_id.select.ids = {7};
  by_id.succeeded = true;
  auto decoded = DecodeRequest(EncodeRequest(by_id));
  REQUIRE(decoded.ok());
  CHECK(std::get<RetryRequest>(*decoded).succeeded);
  RetryRequest plain;
  plain.select.ids = {7};
  CHECK_FALSE(std::get<RetryRequest>(*DecodeRequest(EncodeRequest(plain))).succeeded);

  auto filtered = DecodeRequest(
      R"({"proto":1,"type":"retry","states":["succeeded","expired"],"succeeded":true})");
  REQUIRE(filtered.ok());
  CHECK(std::get<RetryRequest>(*filtered).select.states ==
        std::vector<TaskState>{TaskState::kSucceeded, TaskState::kExpired});
  CHECK_FALSE(DecodeRequest(R"({"proto":1,"type":"retry","states":["expired"]})").ok());
  CHECK_FALSE(DecodeRequest(R"({"proto":1,"type":"retry","ids":[1],"succeeded":1})").ok());
  // The flag alone names no task.
  CHECK_FALSE(DecodeRequest(R"({"proto":1,"type":"retry","succeeded":true})").ok());
}

}  // namespace
}  // namespace tq
