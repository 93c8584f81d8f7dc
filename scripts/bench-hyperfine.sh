#!/usr/bin/env bash
# bench-hyperfine.sh [BIN]: wall time (hyperfine) and peak RSS (/usr/bin/time -v) of the commands behind
# issue 6's targets: `pi --version`, `pi -p hi --provider demo` at full demo speed, `pi -p hi` on a
# 20-delta answer, and `pi -p` / `pi --mode json` on 20,000- and 200,000-delta streams from the
# scripted server (started here from cmd/pi's test binary; loopback only). BIN defaults to bin/pi
# (`make build`). The first frame of the TUI is measured by cmd/pi's BenchmarkTUIFirstFrame.
#
# PI073=/path/to/pi-coding-agent/dist/cli.js adds pi 0.73.1 (run with node) on the same commands, e.g.
#   npm install --prefix /tmp/pi073 @mariozechner/pi-coding-agent@0.73.1
#   PI073=/tmp/pi073/node_modules/@mariozechner/pi-coding-agent/dist/cli.js scripts/bench-hyperfine.sh
# PI16=/path/to/@earendil-works/pi-coding-agent/dist/cli.js adds pi 1.6.0 instead; it needs Node 22,
# given by NODE=/path/to/node when the node on PATH is older.
# RUNS (default 20) and STREAM_RUNS (default 3) set the number of runs; JSON200K=0 skips the
# 200,000-delta JSON stream (its output is about 40 GB: minutes through a pipe).
# STARTUP_ONLY=1 stops after the startup commands (--version and the two short -p runs).
set -euo pipefail
cd "$(dirname "$0")/.."

if ! command -v hyperfine >/dev/null 2>&1; then
	echo "hyperfine is not installed (Debian: apt-get install hyperfine): skipping" >&2
	exit 0
fi
BIN=$(realpath "${1:-bin/pi}")
RUNS=${RUNS:-20}
STREAM_RUNS=${STREAM_RUNS:-3}
JSON200K=${JSON200K:-1}

tmp=$(mktemp -d)
pids=()
cleanup() {
	for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null || true; done
	for pid in "${pids[@]}"; do wait "$pid" 2>/dev/null || true; done
	rm -rf "$tmp"
}
trap cleanup EXIT

# The scripted OpenAI-compatible server, one per stream length, from cmd/pi's test binary.
go test -c -o "$tmp/pibench.test" ./cmd/pi
for n in 20 20000 200000; do
	(cd cmd/pi && PI_BENCH_SERVE="$tmp/url$n" PI_BENCH_DELTAS=$n exec "$tmp/pibench.test" -test.run '^TestBenchServer$' >"$tmp/server$n.log" 2>&1) &
	pids+=($!)
done
for n in 20 20000 200000; do
	for _ in $(seq 600); do [ -s "$tmp/url$n" ] && break; sleep 0.1; done
	[ -s "$tmp/url$n" ] || { echo "the scripted server did not start:"; cat "$tmp/server$n.log"; exit 1; }
done
url20=$(cat "$tmp/url20")
url20k=$(cat "$tmp/url20000")
url200k=$(cat "$tmp/url200000")

# Every command runs in an empty project with its own agent dir (no user configuration).
export HOME="$tmp/home" PI_CODING_AGENT_DIR="$tmp/agent" PI_DEMO_DELAY=0
mkdir -p "$HOME" "$PI_CODING_AGENT_DIR" "$tmp/proj"
cd "$tmp/proj"

# pi 0.73.1 reaches the same servers through models.json providers of its own agent dir.
pi073=()
PI073=${PI16:-${PI073:-}}
if [ -n "$PI073" ]; then
	mkdir -p "$tmp/agent073"
	cat >"$tmp/agent073/models.json" <<EOF
{"providers":{
  "bench20":{"baseUrl":"$url20","api":"openai-completions","apiKey":"none","models":[{"id":"test-model"}]},
  "bench20k":{"baseUrl":"$url20k","api":"openai-completions","apiKey":"none","models":[{"id":"test-model"}]},
  "bench200k":{"baseUrl":"$url200k","api":"openai-completions","apiKey":"none","models":[{"id":"test-model"}]}}}
EOF
	pi073=("${NODE:-node}" "$PI073")
fi

# run NAME RUNS PI-GO-ARGS -- PI073-ARGS: hyperfine, then one run under /usr/bin/time for the peak RSS;
# output goes through a pipe in both, as to a program reading it.
run() {
	local name=$1 runs=$2
	shift 2
	local ours=() theirs=()
	while [ $# -gt 0 ] && [ "$1" != -- ]; do ours+=("$1"); shift; done
	[ $# -gt 0 ] && shift
	theirs=("$@")
	echo
	echo "== $name"
	local cmds=("$BIN ${ours[*]}")
	if [ ${#pi073[@]} -gt 0 ] && [ ${#theirs[@]} -gt 0 ]; then
		cmds+=("env PI_CODING_AGENT_DIR=$tmp/agent073 ${pi073[*]} ${theirs[*]}")
	fi
	hyperfine -N --output=pipe --warmup 1 --runs "$runs" "${cmds[@]}"
	if [ -x /usr/bin/time ]; then
		for c in "${cmds[@]}"; do
			# shellcheck disable=SC2086
			{ /usr/bin/time -f "peak RSS %M KB, %e s, %U s user, %S s system: $c" $c 2>"$tmp/time.err" || true; } | cat >/dev/null
			tail -n 1 "$tmp/time.err"
		done
	fi
}

run "pi --version" "$RUNS" --version -- --version
run "pi -p hi --provider demo (PI_DEMO_DELAY=0)" "$RUNS" --provider demo -p hi
run "pi -p hi, a 20-delta answer" "$RUNS" --base-url "$url20" --model test-model -p hi -- --provider bench20 --model test-model -p hi
if [ "${STARTUP_ONLY:-0}" != 0 ]; then
	exit 0
fi
run "pi -p, 20,000 deltas" "$STREAM_RUNS" --base-url "$url20k" --model test-model -p hi -- --provider bench20k --model test-model -p hi
run "pi -p, 200,000 deltas" "$STREAM_RUNS" --base-url "$url200k" --model test-model -p hi -- --provider bench200k --model test-model -p hi
run "pi --mode json, 20,000 deltas (about 416 MB of output)" "$STREAM_RUNS" --base-url "$url20k" --model test-model --mode json hi -- --provider bench20k --model test-model --mode json hi
if [ "$JSON200K" != 0 ]; then
	# pi 0.73.1 runs out of heap on this one (about 4.7 GB after 48 s here): pi-go only.
	run "pi --mode json, 200,000 deltas (about 40 GB of output)" 1 --base-url "$url200k" --model test-model --mode json hi
fi
