#!/usr/bin/env bash
# What durable acknowledgements cost (SPEC 6): submits/s with durability = "full" (the default:
# the WAL is synced before the reply) and "normal", one `tq submit` process per task, from one
# submitter and from 8 concurrent ones (group commit shares syncs among them); and the sync
# latency of the disk under the state directory. Tasks go to a paused queue, so the daemon's only
# writes are the submits.
# Usage: bench/durability.sh [N=1000]   (submits per run; build first: scripts/test.sh or
#   scripts/dev.sh; BIN=DIR picks another build, TMPDIR another disk)
set -euo pipefail
cd "$(dirname "$0")/.."
N=${1:-1000}
BIN=${BIN:-build}
(( BASH_VERSINFO[0] >= 5 )) || { echo "needs bash >= 5" >&2; exit 1; }
[[ -x $BIN/tqd && -x $BIN/tq ]] || { echo "no $BIN/tqd or $BIN/tq: build first" >&2; exit 1; }

work=$(mktemp -d "${TMPDIR:-/tmp}/tq-bench-durability.XXXXXX")
daemon=
cleanup() {
  if [[ -n $daemon ]]; then kill "$daemon" 2>/dev/null || true; wait "$daemon" 2>/dev/null || true; fi
  rm -rf "$work"
}
trap cleanup EXIT

now() { printf -v "$1" '%s' "${EPOCHREALTIME/./}"; }  # microseconds

# The disk: 300 small writes, each made durable before the next (O_DSYNC: write + fdatasync),
# first appending to a new file, then overwriting the same bytes in place.
sync_latency() {  # $1 = dd conv flags ("" or notrunc); prints ms per durable write
  local a b
  now a
  dd if=/dev/zero of="$work/fsync.dat" bs=64 count=300 oflag=dsync ${1:+conv=$1} status=none
  now b
  awk -v us=$((b - a)) 'BEGIN { printf "%.3f", us / 300 / 1000 }'
}

submitter() {  # $1 = how many submits, one tq process each
  local j
  for ((j = 0; j < $1; j++)); do "$BIN/tq" submit --queue bench -- true >/dev/null; done
}

# One run: a private tqd with the given durability, N submits from C concurrent submitters;
# prints a row of the table.
submit_rate() {  # $1 = durability, $2 = submitters
  local d=$1 c=$2 dir="$work/run-$1-$2" t0 t1 i got pids=()
  mkdir -p "$dir"
  printf 'durability = "%s"\n[queues.bench]\n' "$d" > "$dir/tqd.toml"
  "$BIN/tqd" --socket "$dir/tq.sock" --state "$dir/state" --config "$dir/tqd.toml" \
    2>"$dir/tqd.log" &
  daemon=$!
  export TQ_SOCKET=$dir/tq.sock
  for _ in $(seq 200); do "$BIN/tq" ping >/dev/null 2>&1 && break; sleep 0.05; done
  "$BIN/tq" queue pause bench >/dev/null
  now t0
  for ((i = 0; i < c; i++)); do
    submitter $(( N / c + (i < N % c ? 1 : 0) )) &
    pids+=($!)
  done
  wait "${pids[@]}"
  now t1
  got=$("$BIN/tq" list --queue bench --limit "$N" --json | wc -l)
  kill "$daemon"
  wait "$daemon" 2>/dev/null || true
  daemon=
  [[ $got == "$N" ]] || { echo "expected $N tasks, found $got" >&2; exit 1; }
  awk -v d="$d" -v c="$c" -v n="$N" -v us=$((t1 - t0)) \
    'BEGIN { printf "  %-11s %-11s %8.2f %10.0f\n", d, c, us / 1e6, n / (us / 1e6) }'
}

model=$(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ *//')
fs=$(df -PT "$work" | awk 'NR == 2 { print $2 " on " $1 }')
echo "tq durability bench: $(nproc) cpus (${model:-unknown cpu}), kernel $(uname -r)"
echo "state directory under $work: $fs"
echo
echo "disk sync latency, 64-byte O_DSYNC writes (write + fdatasync), 300 each:"
echo "  appending:            $(sync_latency "") ms per write"
echo "  overwriting in place: $(sync_latency notrunc) ms per write"
echo
echo "submits into a paused queue, one tq process per submit, N=$N per run:"
printf '  %-11s %-11s %8s %10s\n' durability submitters seconds submits/s
for d in full normal; do
  for c in 1 8; do
    submit_rate "$d" "$c"
  done
done
