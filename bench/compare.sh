#!/usr/bin/env bash
# tq beside the tools it replaces, on this machine in one go. N trivial tasks (`sh -c true`) with
# P slots go through xargs -P (no queue, no store, no output kept), task-spooler (`tsp -n`, one
# client per job) and tq (one `tq submit` per task, then `tq submit --batch`; output captured,
# durability "full"), RUNS times each; then the time from invocation to task start on an idle
# queue. Prints jobs/s, the machine's CPU per job, tqd's own and its children's (shims and
# tasks), the medians, and tq's ratio to each anchor.
# Last, the CPU of a client's start: `tq version` (no tqd) beside `tsp -V`.
# Usage: bench/compare.sh [N=1000] [P=2] [RUNS=3]
#   (build first: scripts/dev.sh or scripts/test.sh; BIN=DIR picks another build; TMPDIR=DIR
#   puts the state directories on another file system; LAT=K samples
#   of latency, 50 by default; VK=K runs of each client's start, 500 by default; task-spooler's rows need `apt-get install task-spooler`)
set -uo pipefail
cd "$(dirname "$0")/.."
N=${1:-1000}
P=${2:-2}
RUNS=${3:-3}
K=${LAT:-50}
BIN=$(realpath "${BIN:-build}")
(( BASH_VERSINFO[0] >= 5 )) || { echo "needs bash >= 5" >&2; exit 1; }
[ -x "$BIN/tqd" ] || { echo "no $BIN/tqd: build first" >&2; exit 1; }
export LC_ALL=C

base=$(mktemp -d "${TMPDIR:-/tmp}/tq-compare.XXXXXX")
daemon=""
cleanup() {
  [ -z "$daemon" ] || { kill "$daemon" 2>/dev/null; wait "$daemon" 2>/dev/null; }
  [ -S "$base/tsp.sock" ] && TS_SOCKET=$base/tsp.sock timeout 5 tsp -K >/dev/null 2>&1
  rm -rf "$base"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

now() { printf -v "$1" '%s' "${EPOCHREALTIME/./}"; }  # microseconds, no fork
# The machine's busy CPU in jiffies (1/100 s), from /proc/stat.
busy() { local _c u n s i w q sq st rest; read -r _c u n s i w q sq st rest < /proc/stat
         printf -v "$1" '%s' "$((u + n + s + q + sq + st))"; }
# A process's own CPU and its reaped children's, in jiffies: "self children".
proc_cpu() { local f; read -ra f < "/proc/$1/stat"
             echo "$((f[13] + f[14])) $((f[15] + f[16]))"; }
median() { printf '%s\n' "$@" | sort -n | awk '{a[NR]=$1} END{print NR%2 ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2}'; }
pct() { local p=$1; shift; printf '%s\n' "$@" | sort -n |
        awk -v p="$p" '{a[NR]=$1} END{printf "%.2f", a[int((NR-1)*p/100+0.5)+1]/1000}'; }

# Starts a private tqd with P slots; TQ_SOCKET points at it.
start_tqd() {
  local d=$1
  mkdir -p "$d"
  printf 'max_running = %s\ndurability = "full"\n' "$P" > "$d/tqd.toml"
  "$BIN/tqd" --socket "$d/tq.sock" --state "$d/state" --config "$d/tqd.toml" 2>"$d/tqd.log" &
  daemon=$!
  export TQ_SOCKET=$d/tq.sock
  for _ in $(seq 200); do "$BIN/tq" ping >/dev/null 2>&1 && return 0; sleep 0.05; done
  echo "tqd did not start: $(cat "$d/tqd.log")" >&2
  return 1
}
stop_tqd() { kill "$daemon"; wait "$daemon" 2>/dev/null; daemon=""; }

# Each bench_X DIR sets TOT_US (first submission to the last job's end), OK (jobs that succeeded),
# CPU (machine busy jiffies), and for tq SELF and KIDS (tqd's jiffies, and its children's).
bench_xargs() {
  local t0 t1 c0 c1
  SELF=""; KIDS=""
  now t0; busy c0
  seq "$N" | xargs -P "$P" -I{} sh -c true && OK=$N || OK=0
  now t1; busy c1
  TOT_US=$((t1 - t0)); CPU=$((c1 - c0))
}

bench_tsp() {
  local d=$1 i t0 t1 c0 c1
  command -v tsp >/dev/null || return 1
  SELF=""; KIDS=""
  export TS_SOCKET=$base/tsp.sock TMPDIR=$d TS_MAXFINISHED=$((N + 100)) TS_SLOTS=$P
  tsp -S "$P" >/dev/null 2>&1  # the first client starts the server: not timed
  now t0; busy c0
  for ((i = 0; i < N; i++)); do tsp -n sh -c true >/dev/null; done
  for ((i = N - P < 0 ? 0 : N - P; i < N; i++)); do tsp -w "$i" >/dev/null 2>&1; done
  now t1; busy c1
  OK=$(tsp -l | awk 'NR > 1 && $2 == "finished" && $4 == "0"' | wc -l)
  timeout 10 tsp -K >/dev/null 2>&1
  unset TS_SOCKET TMPDIR TS_MAXFINISHED TS_SLOTS
  TOT_US=$((t1 - t0)); CPU=$((c1 - c0))
}

# $2: "each" (one tq process per task) or "batch" (one `tq submit --batch`).
bench_tq_mode() {
  local d=$1 mode=$2 i t0 t1 c0 c1 p0 p1 ids=()
  start_tqd "$d" || return 1
  read -r -a p0 < <(proc_cpu "$daemon")
  now t0; busy c0
  if [ "$mode" = each ]; then
    for ((i = 0; i < N; i++)); do ids+=("$("$BIN/tq" submit -- sh -c true)"); done
  else
    mapfile -t ids < <(yes true | head -n "$N" | "$BIN/tq" submit --batch)
  fi
  "$BIN/tq" wait "${ids[@]}" >/dev/null
  now t1; busy c1
  read -r -a p1 < <(proc_cpu "$daemon")
  OK=$("$BIN/tq" list --state succeeded --limit 0 --json | wc -l)
  stop_tqd
  TOT_US=$((t1 - t0)); CPU=$((c1 - c0))
  SELF=$((p1[0] - p0[0])); KIDS=$((p1[1] - p0[1]))
}
bench_tq() { bench_tq_mode "$1" each; }
bench_tq_batch() { bench_tq_mode "$1" batch; }

# One row per tool: medians of RUNS runs; the jobs/s median is remembered for the ratios.
declare -A RATE TQD_MS
row() {
  local tool=$1 r tots=() cpus=() selfs=() kids=() bad=""
  for ((r = 1; r <= RUNS; r++)); do
    TOT_US=""; OK=0; CPU=""; SELF=""; KIDS=""
    if ! "bench_$tool" "$base/$tool.$r"; then printf '%-10s skipped\n' "$tool"; return; fi
    tots+=("$TOT_US"); cpus+=("$CPU")
    [ -z "$SELF" ] || { selfs+=("$SELF"); kids+=("$KIDS"); }
    [ "$OK" -eq "$N" ] || bad="$bad run $r: $OK/$N succeeded"
    sleep 0.5
  done
  local t c s="" k=""
  t=$(median "${tots[@]}"); c=$(median "${cpus[@]}")
  [ ${#selfs[@]} -eq 0 ] || { s=$(median "${selfs[@]}"); k=$(median "${kids[@]}"); }
  RATE[$tool]=$(awk -v n="$N" -v t="$t" 'BEGIN{printf "%.0f", n/(t/1e6)}')
  [ -z "$s" ] || TQD_MS[$tool]=$(awk -v s="$s" -v n="$N" 'BEGIN{printf "%.3f", s*10/n}')
  awk -v tool="$tool" -v n="$N" -v t="$t" -v c="$c" -v s="$s" -v k="$k" -v bad="$bad" 'BEGIN{
    printf "%-10s %8.0f %8.3f %10.3f %10s %10s%s\n", tool, n/(t/1e6), t/1e3/n, c*10/n,
      s == "" ? "-" : sprintf("%.3f", s*10/n), k == "" ? "-" : sprintf("%.3f", k*10/n),
      bad == "" ? "" : "  (" bad ")" }'
}

ratio() {  # $1 over $2
  [ -n "${RATE[$1]:-}" ] && [ -n "${RATE[$2]:-}" ] || { echo "-"; return; }
  awk -v a="${RATE[$1]}" -v b="${RATE[$2]}" 'BEGIN{printf "%.2fx", a/b}'
}

echo "bench/compare.sh: N=$N P=$P, $RUNS runs each (medians), $(nproc) cpus,$(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2), $(date -u +%F)"
echo
printf '%-10s %8s %8s %10s %10s %10s\n' tool jobs/s ms/job cpu_ms/job tqd_ms/job kids_ms/job
for tool in xargs tsp tq tq_batch; do row "$tool"; done
echo
echo "tq (one submit per task) / tsp -n:     $(ratio tq tsp)   (target >= 0.8x, aim 1.2x)"
echo "tq submit --batch / xargs -P $P:        $(ratio tq_batch xargs)   (target >= 0.5x, aim 0.8x)"
echo "tqd's CPU per task, submit --batch:    ${TQD_MS[tq_batch]:--} ms   (target <= 0.6 ms, aim 0.4)"

# A client's start: the CPU of `tq version` with no tqd to answer beside `tsp -V`, from the
# shell's children times (`times`, run in this shell) over VK runs each.
children_ms() {  # sets CH_MS
  times > "$base/times"
  CH_MS=$(tail -1 "$base/times" | awk '{split($0, a, /[ms]+/)
    printf "%.0f", (a[1] * 60 + a[2] + a[3] * 60 + a[4]) * 1000}')
}
client_cpu() {  # sets CPU_MS: ms of CPU per run of "$@"
  local before i
  children_ms; before=$CH_MS
  for ((i = 0; i < VK; i++)); do "$@" >/dev/null 2>&1; done
  children_ms
  CPU_MS=$(awk -v a="$CH_MS" -v b="$before" -v k="$VK" 'BEGIN{printf "%.2f", (a - b) / k}')
}
VK=${VK:-500}
echo
echo "== a client's start, CPU per run over $VK runs (ms) =="
TQ_SOCKET=$base/none.sock client_cpu "$BIN/tq" version
tq_cpu=$CPU_MS
printf '%-26s %7s\n' "tq version (no tqd)" "$tq_cpu"
if command -v tsp >/dev/null; then
  client_cpu tsp -V
  printf '%-26s %7s\n' "tsp -V" "$CPU_MS"
  awk -v a="$tq_cpu" -v b="$CPU_MS" \
    'BEGIN{printf "tq version / tsp -V:        %.2fx   (target <= 1.5x, aim 1.0x)\n", a / b}'
fi

# Invocation to task start on an idle queue: the task writes the time it started.
echo
echo "== invocation -> task start, $K samples, idle queue (ms) =="
printf '%-26s %7s %7s %7s\n' "" p50 p90 max
stamp=$base/stamp
direct=()
for ((i = 0; i < K; i++)); do
  now t0; sh -c "date +%s%N > $stamp"; read -r ns < "$stamp"; direct+=($((ns / 1000 - t0)))
done
printf '%-26s %7s %7s %7s\n' "direct sh -c" "$(pct 50 "${direct[@]}")" "$(pct 90 "${direct[@]}")" "$(pct 100 "${direct[@]}")"
if command -v tsp >/dev/null; then
  export TS_SOCKET=$base/tsp.sock TMPDIR=$base TS_SLOTS=1
  tsp -S 1 >/dev/null 2>&1
  lat=()
  for ((i = 0; i < K; i++)); do
    rm -f "$stamp"; now t0; tsp -n sh -c "date +%s%N > $stamp" >/dev/null; tsp -w >/dev/null 2>&1
    read -r ns < "$stamp"; lat+=($((ns / 1000 - t0)))
  done
  timeout 10 tsp -K >/dev/null 2>&1
  unset TS_SOCKET TMPDIR TS_SLOTS
  printf '%-26s %7s %7s %7s\n' "tsp -n" "$(pct 50 "${lat[@]}")" "$(pct 90 "${lat[@]}")" "$(pct 100 "${lat[@]}")"
fi
start_tqd "$base/lat" || exit 1
lat=()
for ((i = 0; i < K; i++)); do
  rm -f "$stamp"; now t0; id=$("$BIN/tq" submit -- sh -c "date +%s%N > $stamp")
  "$BIN/tq" wait "$id" >/dev/null; read -r ns < "$stamp"; lat+=($((ns / 1000 - t0)))
done
stop_tqd
printf '%-26s %7s %7s %7s\n' "tq submit" "$(pct 50 "${lat[@]}")" "$(pct 90 "${lat[@]}")" "$(pct 100 "${lat[@]}")"
awk -v t="$(pct 50 "${lat[@]}")" -v d="$(pct 50 "${direct[@]}")" \
  'BEGIN{printf "tq submit p50 - direct p50:  %+.2f ms   (target <= +2 ms, aim +1 ms)\n", t - d}'
# One small append and fdatasync, as the store's commit does, on the state's file system.
if command -v perl >/dev/null; then
  fsync_us=$(perl -MIO::Handle -MTime::HiRes=time -e '
    open(my $f, ">>", $ARGV[0]) or die; my $n = 200; my $t = time;
    for (1..$n) { syswrite($f, "x" x 64); $f->flush; IO::Handle::sync($f) }
    printf "%.0f", (time - $t) * 1e6 / $n' "$base/fsync.dat" 2>/dev/null)
  [ -z "$fsync_us" ] || awk -v u="$fsync_us" 'BEGIN{printf "%-26s %7.2f\n", "one fsync (64 B append)", u/1000}'
fi
