#!/usr/bin/env bash
# Submit throughput and latency: starts a private tqd, submits N `true` tasks with one `tq`
# process per task (as a shell script would) from C concurrent submitters, waits for all of
# them, and prints tasks/s and submit-latency percentiles.
# Usage: bench/submit.sh [N=2000] [MAX_RUNNING=2] [SUBMITTERS=1] [DURABILITY=full]
#   (build first: scripts/dev.sh or scripts/test.sh; BIN=DIR picks another build; CGROUP=DIR runs
#   every task in a cgroup of its own under the delegated cgroup v2 directory DIR)
set -euo pipefail
cd "$(dirname "$0")/.."
N=${1:-2000}
P=${2:-2}
C=${3:-1}
D=${4:-full}
BIN=${BIN:-build}
(( BASH_VERSINFO[0] >= 5 )) || { echo "needs bash >= 5" >&2; exit 1; }

dir=$(mktemp -d /tmp/tq-bench.XXXXXX)
printf 'max_running = %s\ndurability = "%s"\n' "$P" "$D" > "$dir/tqd.toml"
[ -z "${CGROUP:-}" ] || printf 'cgroup = "%s"\n' "$CGROUP" >> "$dir/tqd.toml"
"$BIN/tqd" --socket "$dir/tq.sock" --state "$dir/state" --config "$dir/tqd.toml" 2>"$dir/tqd.log" &
daemon=$!
cleanup() { kill "$daemon" 2>/dev/null; wait "$daemon" 2>/dev/null; rm -rf "$dir"; }
trap cleanup EXIT
export TQ_SOCKET=$dir/tq.sock
for _ in $(seq 100); do "$BIN/tq" ping >/dev/null 2>&1 && break; sleep 0.05; done

now() { printf -v "$1" '%s' "${EPOCHREALTIME/./}"; }
submitter() {  # $1 = how many; writes "id latency_us" lines
  local i a b id
  for ((i = 0; i < $1; i++)); do
    now a
    id=$("$BIN/tq" submit -- true)
    now b
    echo "$id $((b - a))"
  done
}
now t0
for ((c = 0; c < C; c++)); do submitter $(( N / C + (c < N % C ? 1 : 0) )) > "$dir/sub.$c" & done
wait $(jobs -p | grep -v "^$daemon$") 2>/dev/null || true
now t1
cat "$dir"/sub.* > "$dir/all"
mapfile -t ids < <(cut -d' ' -f1 "$dir/all")
"$BIN/tq" wait "${ids[@]}"
now t2

pct() { cut -d' ' -f2 "$dir/all" | sort -n | awk -v p="$1" '{a[NR]=$1} END{i=int((NR-1)*p/100+0.5)+1; printf "%.2f", a[i]/1000}'; }
ok=$("$BIN/tq" list --state succeeded --limit "$N" --json | wc -l)
echo "tq bench: N=$N max_running=$P submitters=$C durability=$D cgroup=${CGROUP:-none} on $(nproc) cpus,$(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2)"
awk -v n="$N" -v s=$((t1 - t0)) -v t=$((t2 - t0)) 'BEGIN{
  printf "submit phase:  %.2f s  (%.0f submits/s)\n", s/1e6, n/(s/1e6);
  printf "end to end:    %.2f s  (%.0f tasks/s, submit to all finished)\n", t/1e6, n/(t/1e6) }'
echo "submit latency ms: p50 $(pct 50)  p90 $(pct 90)  p99 $(pct 99)  max $(pct 100)"
echo "succeeded: $ok/$N"
