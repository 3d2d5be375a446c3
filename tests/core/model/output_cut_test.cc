// The cuts of an attempt's output: as the store keeps them, and as tq logs and tq status say them.
#include "core/model/output_cut.h"

#include <doctest/doctest.h>

namespace tq {
namespace {

TEST_CASE("output cuts: kept as text and read back, lines that are no cut left out") {
  const std::vector<OutputCut> cuts = {{false, 11534336, "No space left on device"},
                                       {true, 0, "Disk quota exceeded"}};
  const std::string text = EncodeOutputCuts(cuts);
  CHECK(text == "stdout 11534336 No space left on device\nstderr 0 Disk quota exceeded");
  CHECK(DecodeOutputCuts(text) == cuts);
  CHECK(EncodeOutputCuts({}).empty());
  CHECK(DecodeOutputCuts("").empty());
  for (const char* bad : {"stdout", "stdout 12", "stdin 1 x", "stdout -1 x", "stdout 1x x"})
    CHECK_MESSAGE(DecodeOutputCuts(bad).empty(), bad);
}

TEST_CASE("output cuts: the marker after the bytes kept, and the words of tq status") {
  const OutputCut cut{false, 11534336, "No space left on device"};
  CHECK(OutputCutMarker(cut, false) ==
        "\n[tq: output cut here at 11534336 bytes: No space left on device]\n");
  CHECK(OutputCutMarker(cut, true) ==
        "\n[tq: stdout cut at 11534336 bytes: No space left on device]\n");
  CHECK(OutputCutSummary(cut) == "stdout cut at 11 MiB: No space left on device");
  CHECK(OutputCutSummary({true, 2048, "Input/output error"}) ==
        "stderr cut at 2 KiB: Input/output error");
  CHECK(OutputCutSummary({false, 0, "File too large"}) == "stdout cut at 0 bytes: File too large");
}

}  // namespace
}  // namespace tq
