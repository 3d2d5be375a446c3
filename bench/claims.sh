#!/usr/bin/env bash
# Claims per second against one local PostgreSQL with one, two and three hosts (SPEC 12):
# starts a private PostgreSQL server (Debian's postgresql package; fsync on, as a real store),
# then for each host count
#   - store-only: tq-bench-claims, each host a process of its own claiming and completing N
#     ready tasks with no task process (the store's cost alone);
#   - no-op tasks: that many tqd on one fresh database, N `true` tasks submitted in one batch
#     through the first, timed until every one has ended (claims, shims and processes).
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
  >"$dir/pg.log" 2>&1 &
pg=$!
conn() { echo "host=$dir port=5499 user=tq dbname=$1"; }
for _ in $(seq 200); do "$pg_bin/pg_isready" -q -h "$dir" -p 5499 && break; sleep 0.1; done
psql_run() { "$pg_bin/psql" -q -h "$dir" -p 5499 -U tq -d postgres -c "$1" >/dev/null; }

echo "tq claims bench: N=$N max_running=$P on $(nproc) cpus,$(grep -m1 'model name' /proc/cpuinfo |
  cut -d: -f2), PostgreSQL $("$pg_bin/postgres" --version | awk '{print $3}') (fsync on)"
for hosts in 1 2 3; do
  psql_run "CREATE DATABASE s$hosts"
  "$BIN/tq-bench-claims" "$(conn "s$hosts")" "$hosts" "$N"
done

now() { printf -v "$1" '%s' "${EPOCHREALTIME/./}"; }
for hosts in 1 2 3; do
  psql_run "CREATE DATABASE t$hosts"
  daemons=()
  for h in $(seq "$hosts"); do
    d=$dir/t$hosts-h$h
    mkdir -p "$d"
    # The default queue runs anywhere: the batch submitted through h1 spreads over every host.
    printf 'store = "postgresql:///t%s?host=%s&port=5499&user=tq"\nhost = "h%s"\nmax_running = %s\n[queues.default]\nhosts = "any"\n' \
      "$hosts" "$dir" "$h" "$P" >"$d/tqd.toml"
    "$BIN/tqd" --socket "$d/tq.sock" --state "$d/state" --config "$d/tqd.toml" 2>"$d/tqd.log" &
    daemons+=($!)
    for _ in $(seq 200); do "$BIN/tq" --socket "$d/tq.sock" ping >/dev/null 2>&1 && break; sleep 0.05; done
  done
  export TQ_SOCKET=$dir/t$hosts-h1/tq.sock
  now t0
  mapfile -t ids < <(yes true | head -n "$N" | "$BIN/tq" submit --batch)
  "$BIN/tq" wait "${ids[@]}" >/dev/null
  now t1
  ran=$("$pg_bin/psql" -h "$dir" -p 5499 -U tq -d "t$hosts" -At -F: \
    -c "SELECT host, count(*) FROM attempts GROUP BY host ORDER BY host" | paste -sd' ')
  awk -v n="$N" -v h="$hosts" -v us=$((t1 - t0)) -v ran="$ran" 'BEGIN{
    printf "no-op tasks, %d host%s: %d tasks in %.2f s: %.0f tasks/s%s\n", h, h == 1 ? "" : "s",
      n, us / 1e6, n / (us / 1e6), ran == "" ? "" : " (" ran ")" }'
  for pid in "${daemons[@]}"; do kill "$pid"; wait "$pid" 2>/dev/null || true; done
  daemons=()
done
