# Sourced (bash) by each gateway's run.sh: what every gateway check shares.
#
#   usage: run.sh SLUICE OUTDIR
#
# Skips (exit 77, with the reason) when node or the pinned packages are
# missing (scripts/install-gateways installs them). gate NAME ARGS... runs one
# `sluice gate` with the folder's known.txt, prints its text report, writes
# its HTML page to OUTDIR/gate-NAME.html and remembers a failure; expect RE
# checks that the reports printed so far say RE (a finding the check is
# there to show); finish ends with 0 only when every run passed, every
# expected line was seen and no known difference was stale.
set -u
SLUICE=${1:?usage: run.sh SLUICE OUTDIR}
OUT=${2:?usage: run.sh SLUICE OUTDIR}
here=$(cd "$(dirname "$0")" && pwd)
gw=$(cd "$here/.." && pwd)
CAPS=$(cd "$gw/../../corpus/captures" && pwd)
command -v node >/dev/null || { echo "node not found: skipped"; exit 77; }
[ "$(node -p 'process.versions.node.split(".")[0]')" -ge 20 ] ||
  { echo "node $(node --version) is older than 20 (the gateways need 20): skipped"; exit 77; }
[ -f "$gw/node_modules/.package-lock.json" ] ||
  { echo "the gateways are not installed (scripts/install-gateways): skipped"; exit 77; }
mkdir -p "$OUT"
log="$OUT/gate-$(basename "$here").log"
: >"$log"
failed=0

# The captures of the OpenAI chat endpoint (what an OpenAI-chat upstream
# serves), by name.
OPENAI_CHAT="deepseek-chat-reasoning_content.chunks.jsonl groq-qwen3-reasoning.chunks.jsonl
  mistral-magistral-thinking.chunks.jsonl openai-chat-max-tokens-length.sse
  openai-chat-n3-multiple-choices.sse openai-chat-refusal.sse openai-chat-text-usage-done.sse
  openai-chat-text.chunks.jsonl openai-chat-tool-calls.sse written-azure-content-filter.sse
  written-llamacpp-gpt-oss-harmony.sse written-openai-parallel-tools.sse
  written-openrouter-processing-error.sse"

caps() { for c in "$@"; do printf '%s/%s\n' "$CAPS" "$c"; done; }

gate() {
  local name=$1 rc t0 report
  report="$OUT/gate-$name.txt"
  shift
  echo "== sluice gate ($name): $*"
  t0=$(date +%s)
  # The gate's wall time and peak RSS, for conformance/gateways/README.md.
  # GNU time exits with the command's status; without it the gate runs alone.
  local timed=()
  rm -f "$OUT/gate-$name.time"
  [ -x /usr/bin/time ] && timed=(/usr/bin/time -f "%e s, peak RSS %M KB" -o "$OUT/gate-$name.time")
  ${timed[@]+"${timed[@]}"} "$SLUICE" gate --known "$here/known.txt" \
    --report "html:$OUT/gate-$name.html" "$@" >"$report" 2>&1
  rc=$?
  cat "$report"
  cat "$report" >>"$log"
  echo "== $name: exit status $rc in $(($(date +%s) - t0)) s"
  [ -f "$OUT/gate-$name.time" ] && echo "== $name: the gate: $(tail -n 1 "$OUT/gate-$name.time")"
  [ "$rc" -eq 0 ] || failed=1
  if grep -q "no longer seen" "$report"; then
    echo "FAIL $name: a difference in known.txt is no longer seen (remove it)"
    failed=1
  fi
}

expect() {
  if ! grep -Eq -- "$1" "$log"; then
    echo "FAIL: the reports do not say: $1"
    failed=1
  fi
}

finish() {
  [ "$failed" -eq 0 ] && echo "ok: every difference is in known.txt"
  exit "$failed"
}
