// The job files' load errors as `tq jobs` and `tq reload` answers carry them, bounded so an
// answer always fits a frame however many files fail.
#include "core/model/limits.h"
#include "core/proto/job_json.h"
#include "daemon/handlers/handlers.h"

namespace tq {

nlohmann::json LoadErrorsJson(const std::vector<JobLoadError>& errors, size_t& bytes) {
  nlohmann::json out = nlohmann::json::array();
  for (const JobLoadError& e : errors) {
    nlohmann::json j = JobLoadErrorToJson(e);
    const size_t size = WireText(j).size() + 1;
    if (bytes + size > kMaxListPageBytes / 2) break;
    bytes += size;
    out.push_back(std::move(j));
  }
  return out;
}

}  // namespace tq
