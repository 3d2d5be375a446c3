// The task files' layout under a state directory: which tasks have files, and their removal.
#include "daemon/run/task_files.h"

#include <doctest/doctest.h>

#include <fstream>

#include "support/temp_dir.h"

namespace tq {
namespace {

// Writes an empty file at `path`.
void Touch(const std::string& path) {
  std::ofstream out(path);
  REQUIRE(out.good());
}

TEST_CASE("TaskFiles::Ids names each task with files once, in id order, and Remove takes them") {
  TempDir state("task-files");
  TaskFiles files(state.path.string());
  REQUIRE(files.Prepare().ok());
  CHECK(files.Ids().empty());
  for (TaskId id : {TaskId{2001}, TaskId{7}, TaskId{999}}) REQUIRE(files.MakeDirFor(id).ok());
  Touch(files.Stdout(7, 1));
  Touch(files.Stderr(7, 1));
  Touch(files.StatusRecord(7, 2));
  Touch(files.Stdin(999));
  Touch(files.Order(2001, 1));
  Touch(files.SpareDir() + "/3.status");  // a spare record names no task
  Touch(files.Dir(7) + "/notes");         // nor does a file not named by an id
  CHECK(files.Ids() == std::vector<TaskId>{7, 999, 2001});
  CHECK(files.Remove({7, 2001}).empty());
  CHECK(files.Ids() == std::vector<TaskId>{999});
}

}  // namespace
}  // namespace tq
