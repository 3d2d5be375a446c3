#include "core/model/output_cut.h"

#include <charconv>

namespace tq {

namespace {
// The name of a stream, as the store, the markers and the JSON write it.
const char* StreamName(bool stderr_stream) {
  return stderr_stream ? "stderr" : "stdout";
}

// Reads one "STREAM AT REASON" line; false when it is not one.
bool ReadCut(std::string_view line, OutputCut& out) {
  const size_t space = line.find(' ');
  const size_t second = space == std::string_view::npos ? space : line.find(' ', space + 1);
  if (second == std::string_view::npos) return false;
  const std::string_view stream = line.substr(0, space);
  if (stream != "stdout" && stream != "stderr") return false;
  const std::string_view at = line.substr(space + 1, second - space - 1);
  auto [ptr, ec] = std::from_chars(at.data(), at.data() + at.size(), out.at);
  if (ec != std::errc() || ptr != at.data() + at.size() || out.at < 0) return false;
  out.stderr_stream = stream == "stderr";
  out.reason = std::string(line.substr(second + 1));
  return true;
}
}  // namespace

std::string EncodeOutputCuts(const std::vector<OutputCut>& cuts) {
  std::string text;
  for (const OutputCut& cut : cuts)
    text += (text.empty() ? "" : "\n") + std::string(StreamName(cut.stderr_stream)) + " " +
            std::to_string(cut.at) + " " + cut.reason;
  return text;
}

std::vector<OutputCut> DecodeOutputCuts(std::string_view text) {
  std::vector<OutputCut> cuts;
  while (!text.empty()) {
    const size_t nl = text.find('\n');
    OutputCut cut;
    if (ReadCut(text.substr(0, nl), cut)) cuts.push_back(std::move(cut));
    text.remove_prefix(nl == std::string_view::npos ? text.size() : nl + 1);
  }
  return cuts;
}

std::string OutputCutMarker(const OutputCut& cut, bool merged) {
  const std::string what = merged ? std::string(StreamName(cut.stderr_stream)) + " cut at "
                                  : std::string("output cut here at ");
  return "\n[tq: " + what + std::to_string(cut.at) + " bytes: " + cut.reason + "]\n";
}

std::string OutputCutSummary(const OutputCut& cut) {
  std::string size = std::to_string(cut.at) + " bytes";
  if (cut.at >= (int64_t{1} << 20)) {
    size = std::to_string(cut.at >> 20) + " MiB";
  } else if (cut.at >= 1024) {
    size = std::to_string(cut.at >> 10) + " KiB";
  }
  return std::string(StreamName(cut.stderr_stream)) + " cut at " + size + ": " + cut.reason;
}

}  // namespace tq
