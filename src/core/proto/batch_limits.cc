#include "core/proto/batch_limits.h"

#include <algorithm>
#include <string>

#include "core/model/limits.h"
#include "core/proto/submit_spec.h"

namespace tq {

using nlohmann::json;

namespace {

// The bytes a wire byte string stands for (see bytes.h), without decoding it; 0 for anything
// else, which SpecFromJson refuses later.
size_t WireBytes(const json& v) {
  if (v.is_string()) return v.get_ref<const std::string&>().size();
  if (!v.is_object()) return 0;
  auto b64 = v.find("b64");
  if (b64 == v.end() || !b64->is_string()) return 0;
  const auto& text = b64->get_ref<const std::string&>();
  size_t pad = 0;
  while (pad < 2 && pad < text.size() && text[text.size() - 1 - pad] == '=') ++pad;
  return text.size() / 4 * 3 - std::min(pad, text.size() / 4 * 3);
}

// SubmitPayloadBytes of a submit still in its wire form (each of its stages' commands too).
size_t WirePayloadBytes(const Fields& f) {
  size_t n = 0;
  for (const char* list : {"argv", "env"}) {
    const json* v = f.Find(list);
    if (v == nullptr || !v->is_array()) continue;
    for (const json& item : *v) n += WireBytes(item) + 1;
  }
  for (const char* one : {"shell", "stdin"})
    if (const json* v = f.Find(one)) n += WireBytes(*v);
  const json* stages = f.Find("stages");
  if (stages != nullptr && stages->is_array())
    for (const json& stage : *stages)
      if (stage.is_object()) n += WirePayloadBytes(Fields(stage));
  return n;
}

// At most how many JSON values a task's element of a batch holds (half of kMaxJsonValues is
// left for the elements, the rest for the common part).
size_t SubmitValueBound(const SubmitRequest& r) {
  const TaskSpec& s = r.spec;
  constexpr size_t kScalars = 32;  // the element, its arrays and every scalar field, generously
  size_t n = kScalars + s.argv.size() + s.env.size() + s.labels.size() + s.after.size();
  for (const auto& codes : {r.retry.retry_on_exit, r.retry.no_retry_on_exit})
    if (codes) n += codes->size();
  for (const StageSpec& stage : s.stages) {
    n += kScalars + stage.argv.size();
    for (const auto& codes : {stage.retry.retry_on_exit, stage.retry.no_retry_on_exit})
      if (codes) n += codes->size();
  }
  return n;
}

}  // namespace

Status CheckBatchLimits(const json& common, const std::vector<json>& tasks) {
  if (tasks.size() > kMaxBatchTasks)
    return Status(ErrorCode::kLimit, "tasks",
                  "tasks: " + std::to_string(tasks.size()) + " tasks exceed the limit of " +
                      std::to_string(kMaxBatchTasks) + " per request");
  size_t total = 0;
  for (const json& task : tasks) total += WirePayloadBytes(Fields(task, common));
  if (total > kMaxBatchBytes)
    return Status(ErrorCode::kLimit, "tasks",
                  "tasks: the batch's commands, environments and stdin come to " + SizeText(total) +
                      ", over the limit of " + SizeText(kMaxBatchBytes) + " per request");
  return Status::Ok();
}

Result<std::vector<SubmitRequest>> ResolveBatch(const json& common,
                                                const std::vector<json>& tasks) {
  std::vector<SubmitRequest> out;
  out.reserve(tasks.size());
  for (size_t i = 0; i < tasks.size(); ++i) {
    if (!tasks[i].is_object())
      return Status::Invalid("index:" + std::to_string(i),
                             "tasks[" + std::to_string(i) + "]: expected an object");
    auto r = SubmitFromJson(Fields(tasks[i], common));
    if (!r.ok())
      return Status(r.status().code(), "index:" + std::to_string(i),
                    "tasks[" + std::to_string(i) + "]: " + r.status().message());
    out.push_back(std::move(*r));
  }
  return out;
}

std::vector<size_t> BatchChunkEnds(const std::vector<SubmitRequest>& tasks) {
  std::vector<size_t> ends;
  size_t count = 0, bytes = 0, values = 0;
  for (size_t i = 0; i < tasks.size(); ++i) {
    const size_t n = SubmitPayloadBytes(tasks[i]);
    const size_t v = SubmitValueBound(tasks[i]);
    if (count > 0 && (count == kMaxBatchTasks || bytes + n > kMaxBatchBytes ||
                      values + v > kMaxJsonValues / 2)) {
      ends.push_back(i);
      count = bytes = values = 0;
    }
    ++count;
    bytes += n;
    values += v;
  }
  if (count > 0) ends.push_back(tasks.size());
  return ends;
}

}  // namespace tq
