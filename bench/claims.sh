#!/usr/bin/env bash
# Claims per second against one local PostgreSQL (SPEC 12): starts a private PostgreSQL server
# (Debian's postgresql package; fsync on, as a real store), then
#   - store-only: tq-bench-claims with 1, 2, 4 and 8 hosts, each a process of its own claiming
#     and completing N ready tasks with no task process (the store's cost alone);
#   - no-op tasks: one tqd on SQLite, then 1, 2 and 3 tqd on one fresh PostgreSQL database, N
#     `true` tasks submitted in one batch through the first, timed until every one has ended
#     (claims, shims and processes); with one host, the statements PostgreSQL ran per task
#     (pg_stat_statements) and its speed against SQLite's.
# Usage: bench/claims.sh [N=2000] [MAX_RUNNING=4]
#   (build first: scripts/test.sh; BIN=DIR picks another build)
set -euo pipefail
cd "$(dirname "$0")/.."
N=${1:-2000}
P=${2:-4}
BIN=${BIN:-build}
pg_bin=$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -n1)
[ -x "$pg_bin/postgres" ] || { echo "needs PostgreSQL's server (scripts/deps.sh)" >&2; exit 1; }

dir=$(mktemp -d /tmp/tq-bench-claims.XXXXXX)
daemons=()
# Stops what is left: each daemon, then the server (a plain `wait` would wait for the server too).
cleanup() {
  for pid in "${daemons[@]}"; do kill "$pid" 2>/dev/null || true; done
  for pid in "${daemons[@]}"; do wait "$pid" 2>/dev/null || true; done
  if [ -n "${pg:-}" ]; then
    kill "$pg" 2>/dev/null || true
    wait "$pg" 2>/dev/null || true
  fi
  rm -rf "$dir"
}
trap cleanup EXIT
# PostgreSQL refuses to run as root: as nobody, then.
as_pg=()
if [ "$(id -u)" = 0 ]; then
  chown nobody "$dir"
  as_pg=(setpriv --reuid=nobody --regid=nogroup --clear-groups)
fi
"${as_pg[@]}" "$pg_bin/initdb" -D "$dir/data" -U tq -A trust -E UTF8 --no-locale \
  --no-instructions >"$dir/initdb.log" 2>&1
"${as_pg[@]}" "$pg_bin/postgres" -D "$dir/data" -k "$dir" -p 5499 -c listen_addresses= \
  -c shared_preload_libraries=pg_stat_statements -c pg_stat_statements.track=top \
  >"$dir/pg.log" 2>&1 &
pg=$!
conn() { echo "host=$dir port=5499 user=tq dbname=$1"; }
for _ in $(seq 200); do "$pg_bin/pg_isready" -q -h "$dir" -p 5499 && break; sleep 0.1; done
psql_run() { "$pg_bin/psql" -q -h "$dir" -p 5499 -U tq -d postgres -c "$1" >/dev/null; }
# The value of query $2 in database $1.
psql_value() { "$pg_bin/psql" -h "$dir" -p 5499 -U tq -d "$1" -At -c "$2"; }

echo "tq claims bench: N=$N max_running=$P on $(nproc) cpus,$(grep -m1 'model name' /proc/cpuinfo |
  cut -d: -f2), PostgreSQL $("$pg_bin/postgres" --version | awk '{print $3}') (fsync on)"
for hosts in 1 2 4 8; do
  psql_run "CREATE DATABASE s$hosts"
  "$BIN/tq-bench-claims" "$(conn "s$hosts")" "$hosts" "$N"
done

now() { printf -v "$1" '%s' "${EPOCHREALTIME/./}"; }
# Submits N `true` tasks in one batch through the tqd at socket $1 and waits for them: sets
# `us`, the microseconds it took.
run_batch() {
  local t0 t1
  now t0
  mapfile -t ids < <(yes true | head -n "$N" | "$BIN/tq" --socket "$1" submit --batch)
  "$BIN/tq" --socket "$1" wait "${ids[@]}" >/dev/null
  now t1
  us=$((t1 - t0))
}
# Starts a tqd in directory $1 with tqd.toml $2.
start_tqd() {
  mkdir -p "$1"
  printf '%b' "$2" >"$1/tqd.toml"
  "$BIN/tqd" --socket "$1/tq.sock" --state "$1/state" --config "$1/tqd.toml" 2>"$1/tqd.log" &
  daemons+=($!)
  for _ in $(seq 200); do "$BIN/tq" --socket "$1/tq.sock" ping >/dev/null 2>&1 && break; sleep 0.05; done
}
stop_tqds() {
  for pid in "${daemons[@]}"; do kill "$pid"; wait "$pid" 2>/dev/null || true; done
  daemons=()
}

start_tqd "$dir/sqlite" "max_running = $P\n"
run_batch "$dir/sqlite/tq.sock"
stop_tqds
sqlite_us=$us
awk -v n="$N" -v us="$us" 'BEGIN{
  printf "no-op tasks, SQLite: %d tasks in %.2f s: %.0f tasks/s\n", n, us / 1e6, n / (us / 1e6) }'

for hosts in 1 2 3; do
  psql_run "CREATE DATABASE t$hosts"
  [ "$hosts" = 1 ] && psql_value t1 "CREATE EXTENSION pg_stat_statements" >/dev/null
  for h in $(seq "$hosts"); do
    # The default queue runs anywhere: the batch submitted through h1 spreads over every host.
    start_tqd "$dir/t$hosts-h$h" "store = \"postgresql:///t$hosts?host=$dir&port=5499&user=tq\"\nhost = \"h$h\"\nmax_running = $P\n[queues.default]\nhosts = \"any\"\n"
  done
  [ "$hosts" = 1 ] && psql_value t1 "SELECT pg_stat_statements_reset()" >/dev/null
  run_batch "$dir/t$hosts-h1/tq.sock"
  ran=$(psql_value "t$hosts" "SELECT host || ':' || count(*) FROM attempts GROUP BY host ORDER BY host" |
    paste -sd' ')
  awk -v n="$N" -v h="$hosts" -v us="$us" -v ran="$ran" 'BEGIN{
    printf "no-op tasks, %d host%s: %d tasks in %.2f s: %.0f tasks/s%s\n", h, h == 1 ? "" : "s",
      n, us / 1e6, n / (us / 1e6), ran == "" ? "" : " (" ran ")" }'
  if [ "$hosts" = 1 ]; then
    statements=$(psql_value t1 "SELECT sum(calls) FROM pg_stat_statements WHERE dbid = \
      (SELECT oid FROM pg_database WHERE datname = 't1') AND query NOT LIKE '%pg_stat_statements%'")
    awk -v n="$N" -v s="$statements" -v us="$us" -v sq="$sqlite_us" 'BEGIN{
      printf "  PostgreSQL, 1 host: %.1f statements per task; %.2fx SQLite'"'"'s tasks/s\n",
        s / n, sq / us }'
  fi
  stop_tqds
done
