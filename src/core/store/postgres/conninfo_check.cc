#include "core/store/postgres/conninfo_check.h"

#include <libpq-fe.h>

#include "core/store/postgres/redact.h"

namespace tq {

Status CheckConninfo(const std::string& conninfo) {
  char* error = nullptr;
  PQconninfoOption* options = PQconninfoParse(conninfo.c_str(), &error);
  if (options != nullptr) {
    PQconninfoFree(options);
    return Status::Ok();
  }
  std::string why = error != nullptr ? error : "out of memory";
  PQfreemem(error);
  why = why.substr(0, why.find('\n'));
  return Status(ErrorCode::kConfig, "store",
                "store: \"" + RedactConninfo(conninfo) +
                    "\" is not one libpq can read: " + RedactMessage(why, conninfo) +
                    " (use postgresql://[USER[:PASSWORD]@][HOST][:PORT][/DBNAME][?KEY=VALUE&...] "
                    "with libpq's keys, e.g. \"postgresql:///tq?host=/run/postgresql\")");
}

}  // namespace tq
