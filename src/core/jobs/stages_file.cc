#include "core/jobs/stages_file.h"

#include "core/jobs/file_errors.h"
#include "core/jobs/job_file.h"
#include "core/jobs/job_values.h"
#include "core/jobs/stage_tables.h"

namespace tq {

Result<std::vector<StageSpec>> ParseStagesFile(std::string_view text, const std::string& path) {
  if (text.size() > kMaxJobFileBytes)
    return Status(ErrorCode::kConfig, "",
                  path + ": the file is " + std::to_string(text.size()) +
                      " bytes, over the limit of " + std::to_string(kMaxJobFileBytes) +
                      " bytes for a stages file");
  Result<toml::table> root = ParseTomlText(text, path);
  if (!root.ok()) return root.status();
  const TomlChecker ck(path);
  FileErrors errors(path);
  std::vector<StageSpec> stages;
  bool given = false;
  for (auto [kp, vp] : InFileOrder(*root)) {
    const int line = TomlLine(*kp, *vp);
    if (kp->str() != "stages") {
      errors.Add(ck.Error(KeyText(kp->str()), line,
                          "unknown key (allowed at the top of a stages file: [[stages]])"));
      continue;
    }
    given = true;
    ReadStageTables(ck, "stages", line, *vp, &errors, &stages);
  }
  if (!given && errors.count() == 0)
    return Status(ErrorCode::kConfig, "stages",
                  path +
                      ": no stages (give a [[stages]] table for each stage, with a name and a "
                      "command or argv)");
  if (Status s = errors.Joined(); !s.ok()) return s;
  return stages;
}

}  // namespace tq
