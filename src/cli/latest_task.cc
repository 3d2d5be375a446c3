#include "cli/latest_task.h"

#include <pwd.h>
#include <unistd.h>

#include "cli/client.h"

namespace tq {

namespace {
// The calling user's name as tqd knows it: from the password database, else the uid's number.
std::string OwnUserName() {
  passwd pw{};
  passwd* found = nullptr;
  char buf[4096];
  if (getpwuid_r(geteuid(), &pw, buf, sizeof buf, &found) == 0 && found != nullptr)
    return pw.pw_name;
  return std::to_string(geteuid());
}
}  // namespace

Result<TaskId> LatestOwnTask(const std::string& socket, const std::string& verb) {
  auto client = Client::Connect(socket);
  if (!client.ok()) return client.status();
  ListRequest req;
  req.user = OwnUserName();
  req.limit = 1;
  auto r = client->Call(req);
  if (!r.ok()) return r.status();
  const nlohmann::json& tasks = (*r)["tasks"];
  if (tasks.empty())
    return Status::NotFound("you have no tasks (" + verb + " with no id acts on your latest task)");
  return tasks[0]["id"].get<TaskId>();
}

}  // namespace tq
