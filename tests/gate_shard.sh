#!/bin/sh
# gate_shard.sh SLUICE MW CAPTURES: `sluice gate --shard 1/2` and `--shard
# 2/2` check disjoint sets of cases (the captures and the think suite's
# texts, as recorded only, so it takes seconds) whose union is exactly the
# cases of the whole run; --features takes fewer of the suite's cases; the
# JSON run record names the suites read with conform's version and digest.
# Skipped (77) without python3.
set -u
sluice=$1
mw=$2
caps=$3
command -v python3 >/dev/null || { echo "python3 not found: skipped"; exit 77; }
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
. "$(dirname "$0")/shard_union.sh"
gate() {
  "$sluice" gate --url "http://127.0.0.1:{port}" \
    --middleware "python3 $mw pass --port {port} --deadline 120" \
    --suite think --resplit none --rechunk none --format json "$@" "$caps"
}
ids() { # the case of every record, each once, sorted
  sed -n 's/.*"case":"\([^"]*\)".*/\1/p' | sort -u
}
gate >"$dir/all.json" 2>"$dir/all.err"
rc=$?
[ "$rc" = 0 ] || { echo "the whole run: exit status $rc"; cat "$dir/all.err"; exit 1; }
ids <"$dir/all.json" >"$dir/all"
# The run record names the suites as conform names the same ones.
want=$("$sluice" conform --suite think --modes whole -q --format json 2>/dev/null |
  sed -n 's/.*"record":"run".*\("suites_version":"[^"]*","suites_digest":"[0-9a-f]*"\).*/\1/p')
[ -n "$want" ] || { echo "conform's run record names no suites"; exit 1; }
grep -q "\"record\":\"run\",\"command\":\"gate\",.*$want" "$dir/all.json" ||
  { echo "the gate's run record does not name the suites as $want:"; head -1 "$dir/all.json"; exit 1; }
echo "the run record: $want"
[ "$(wc -l <"$dir/all")" -gt 20 ] || { echo "the whole run has too few cases"; exit 1; }
shard() { gate --shard "$1/$2" 2>/dev/null | ids; }
shards_are_the_run "$dir" 2 shard || exit 1
# --features utf8: only the suite's cases with bytes of 0x80 or more.
gate --features utf8 2>"$dir/f.err" | ids >"$dir/f"
all_think=$(grep -c '^think/' "$dir/all")
f_think=$(grep -c '^think/' "$dir/f")
[ "$f_think" -ge 1 ] && [ "$f_think" -lt "$all_think" ] ||
  { echo "--features utf8 took $f_think of $all_think think cases"; cat "$dir/f.err"; exit 1; }
echo "--features utf8: $f_think of $all_think think cases"
