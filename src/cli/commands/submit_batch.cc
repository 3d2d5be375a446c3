#include "cli/commands/submit_batch.h"

#include <algorithm>
#include <cstdio>
#include <iterator>
#include <set>

#include "cli/client.h"
#include "cli/render.h"
#include "core/model/quote.h"
#include "core/proto/batch_limits.h"
#include "core/proto/wire_bytes.h"

namespace tq {

namespace {

using nlohmann::json;

// -0: NUL-terminated arguments, an empty one ends a task; end of input ends the last task, and
// a last argument without its NUL.
ParsedBatch ParseNulArgv(const std::string& input) {
  ParsedBatch out;
  json argv = json::array();
  const auto end_task = [&] {
    if (argv.empty()) return;
    out.tasks.push_back({{"argv", std::move(argv)}});
    out.where.push_back("task " + std::to_string(out.tasks.size()));
    argv = json::array();
  };
  size_t start = 0;
  while (start < input.size()) {
    size_t end = input.find('\0', start);
    if (end == std::string::npos) end = input.size();
    if (end == start) {
      end_task();
    } else {
      argv.push_back(BytesToJson(input.substr(start, end - start)));
    }
    start = end + 1;
  }
  end_task();
  return out;
}

// A --json-lines line: an object whose every field is a submit field.
Result<json> ParseJsonLine(const std::string& line, const std::string& where) {
  json j = json::parse(line, nullptr, false);
  if (j.is_discarded() || !j.is_object())
    return Status::Invalid("--json-lines", where + ": not a JSON object of submit fields");
  const std::vector<std::string>& fields = SubmitFields();
  for (const auto& [name, value] : j.items()) {
    if (std::find(fields.begin(), fields.end(), name) != fields.end()) continue;
    std::string allowed;
    for (const auto& f : fields) allowed += (allowed.empty() ? "" : " ") + f;
    return Status::Invalid("--json-lines",
                           where + ": " + Quote(name) + " is not a submit field (" + allowed + ")");
  }
  return j;
}

}  // namespace

Result<ParsedBatch> ParseBatch(const std::string& input, BatchFormat format) {
  if (format == BatchFormat::kNulArgv) return ParseNulArgv(input);
  ParsedBatch out;
  size_t line_no = 0;
  size_t start = 0;
  while (start < input.size()) {
    size_t end = input.find('\n', start);
    if (end == std::string::npos) end = input.size();
    const std::string line = input.substr(start, end - start);
    start = end + 1;
    ++line_no;
    if (line.find_first_not_of(" \t\r") == std::string::npos) continue;
    const std::string where = "line " + std::to_string(line_no);
    if (format == BatchFormat::kShellLines) {
      out.tasks.push_back({{"shell", BytesToJson(line)}});
    } else {
      auto j = ParseJsonLine(line, where);
      if (!j.ok()) return j.status();
      out.tasks.push_back(std::move(*j));
    }
    out.where.push_back(where);
  }
  return out;
}

namespace {

// Rewrites a refusal naming "tasks[N]", or the daemon's "entry N: " (1-based within one
// request), to name the line or record it came from.
Status Locate(const Status& st, const ParsedBatch& batch, size_t offset) {
  const std::string& field = st.field();
  if (field.rfind("index:", 0) != 0) {
    const std::string& message = st.message();
    const size_t colon = message.find(": ");
    if (message.rfind("entry ", 0) != 0 || colon == std::string::npos) return st;
    const std::string number = message.substr(6, colon - 6);
    if (number.empty() || number.find_first_not_of("0123456789") != std::string::npos) return st;
    const size_t index = offset + std::stoul(number) - 1;
    if (index >= batch.where.size()) return st;
    return Status(st.code(), field, batch.where[index] + ": " + message.substr(colon + 2));
  }
  const size_t index = offset + std::stoul(field.substr(6));
  std::string message = st.message();
  if (size_t colon = message.find("]: "); colon != std::string::npos)
    message = message.substr(colon + 3);
  return Status(st.code(), field,
                (index < batch.where.size() ? batch.where[index] : "?") + ": " + message);
}

// A batch of more than one request is more than one transaction. What only the daemon can
// refuse, a dependency that does not exist (or is not yours), is checked before the first, so
// a bad line still submits nothing.
Status CheckAfterIds(Client& client, const std::vector<SubmitRequest>& resolved,
                     const ParsedBatch& batch) {
  std::set<TaskId> checked;
  for (size_t i = 0; i < resolved.size(); ++i) {
    for (TaskId id : resolved[i].spec.after) {
      if (!checked.insert(id).second) continue;
      auto r = client.Call(StatusRequest{.id = id});
      if (r.ok()) continue;
      if (r.status().code() != ErrorCode::kNotFound) return r.status();
      return Status(ErrorCode::kNotFound, "after", batch.where[i] + ": " + r.status().message());
    }
  }
  return Status::Ok();
}

// `lost` (the connection to tqd, while tasks [offset, end) of `batch` were sent) with what became
// of the batch: the requests before were stored (their ids are printed), the one in flight was
// stored whole or not at all, and the rest was never sent.
Status CutOff(const Status& lost, const ParsedBatch& batch, size_t offset, size_t end) {
  std::string what = lost.message() + "; ";
  if (offset > 0)
    what += "the tasks before " + batch.where[offset] + " are stored (their ids are above), ";
  what += "the tasks from " + batch.where[offset] + " to " + batch.where[end - 1] +
          " are stored all together or not at all (tq list shows which)";
  if (end < batch.tasks.size())
    what += ", and those from " + batch.where[end] + " on were not sent";
  return Status(lost.code(), lost.field(), what);
}

}  // namespace

int SubmitBatch(const SubmitRequest& common, BatchFormat format, std::istream& in,
                const GlobalOptions& g) {
  const std::string input(std::istreambuf_iterator<char>(in), {});
  auto batch = ParseBatch(input, format);
  if (!batch.ok()) return Fail(batch.status());
  if (batch->tasks.empty()) return 0;
  const json common_json = SubmitToJson(common);
  // Check everything before sending anything: a bad line submits nothing.
  auto checked = ResolveBatch(common_json, batch->tasks);
  if (!checked.ok()) return Fail(Locate(checked.status(), *batch, 0));
  auto client = Client::Connect(g.socket);
  if (!client.ok()) return Fail(client.status());
  // One transaction per request, each within the daemon's batch limits.
  const std::vector<size_t> ends = BatchChunkEnds(*checked);
  if (ends.size() > 1) {
    if (Status st = CheckAfterIds(*client, *checked, *batch); !st.ok()) return Fail(st);
  }
  for (size_t offset = 0; const size_t end : ends) {
    SubmitBatchRequest request;
    request.common = common_json;
    request.tasks.assign(batch->tasks.begin() + static_cast<std::ptrdiff_t>(offset),
                         batch->tasks.begin() + static_cast<std::ptrdiff_t>(end));
    auto r = client->Call(request);
    if (!r.ok() && r.status().code() == ErrorCode::kUnavailable)
      return Fail(CutOff(r.status(), *batch, offset, end));
    if (!r.ok()) return Fail(Locate(r.status(), *batch, offset));
    for (const auto& id : (*r)["ids"]) {
      if (g.json) {
        std::printf("%s\n", json{{"id", id}}.dump().c_str());
      } else {
        std::printf("%lld\n", id.get<long long>());
      }
    }
    for (const auto& queue : r->value("new_queues", json::array()))
      SayQueueIsNew(queue.get<std::string>());
    offset = end;
  }
  return 0;
}

}  // namespace tq
