// libFuzzer target for what tqd does with a client's bytes: split them into frames with
// FrameDecoder (fed in uneven pieces), decode each frame with DecodeRequest, and check what must
// always hold: a refusal names a field and says why, and a decoded request encodes to a frame that
// decodes to the same request. Build with -DTQ_FUZZ=ON and clang; see README "Fuzzing".
//
// Input: frames as on the socket (4-byte big-endian length, then JSON). Input that holds no
// complete frame is decoded as one payload, so mutations of the JSON alone are explored too.
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <optional>
#include <string>
#include <string_view>
#include <variant>

#include "core/proto/framing.h"
#include "core/proto/protocol.h"

namespace {

[[noreturn]] void Fail(const char* what, std::string_view detail = "") {
  std::fprintf(stderr, "proto_fuzz: %s %.*s\n", what, static_cast<int>(detail.size()),
               detail.data());
  std::abort();
}

// One text per request: EncodeRequest's, except that a batch (which decodes to its resolved
// tasks only) is sent back as one element per task over an empty common part.
std::string Canonical(const tq::Request& r) {
  const auto* batch = std::get_if<tq::SubmitBatchRequest>(&r);
  if (batch == nullptr) return tq::EncodeRequest(r);
  tq::SubmitBatchRequest again;
  for (const tq::SubmitRequest& one : batch->resolved) again.tasks.push_back(tq::SubmitToJson(one));
  return tq::EncodeRequest(again);
}

void CheckRequest(std::string_view payload) {
  tq::Result<tq::Request> r = tq::DecodeRequest(payload);
  if (!r.ok()) {
    if (r.status().field().empty() || r.status().message().empty()) Fail("a bare refusal");
    return;
  }
  const std::string text = Canonical(*r);
  tq::Result<tq::Request> back = tq::DecodeRequest(text);
  if (!back.ok()) Fail("a decoded request does not decode again:", back.status().message());
  if (back->index() != r->index()) Fail("the request type changed:", text);
  if (Canonical(*back) != text) Fail("the request changed on a round trip:", text);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view input(reinterpret_cast<const char*>(data), size);
  tq::FrameDecoder decoder(1u << 20);
  bool framed = false;
  size_t step = 1;
  for (size_t pos = 0; pos < input.size(); pos += step, step = step % 13 + 1) {
    decoder.Feed(input.substr(pos, step));
    while (decoder.HasFrame()) {
      tq::Result<std::optional<std::string>> frame = decoder.Next();
      if (!frame.ok()) {
        if (frame.status().code() != tq::ErrorCode::kLimit) Fail("an oversized frame not kLimit");
        pos = input.size();  // the stream is unusable after an error
        break;
      }
      if (!*frame) Fail("HasFrame promised a frame that Next did not give");
      framed = true;
      CheckRequest(**frame);
      // A frame as EncodeFrame writes it comes back whole.
      tq::FrameDecoder echo;
      echo.Feed(tq::EncodeFrame(**frame));
      tq::Result<std::optional<std::string>> same = echo.Next();
      if (!same.ok() || !*same || **same != **frame || echo.buffered() != 0)
        Fail("EncodeFrame does not round-trip");
    }
  }
  if (!framed) CheckRequest(input);
  return 0;
}
