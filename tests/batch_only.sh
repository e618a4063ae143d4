#!/bin/sh
# batch_only.sh SLUICE IMPL: `sluice conform --suite think` against a
# protocol server that knows only batch requests (tests/impl/
# batch_only_think.py) ends within a minute, with exit status 1, says once
# that the implementation does not implement streaming sessions, and still
# runs the batch split modes. Skipped (77) without python3.
set -u
sluice=$1
impl=$2
command -v python3 >/dev/null || { echo "python3 not found: skipped"; exit 77; }
out=$(mktemp)
trap 'rm -f "$out"' EXIT
t0=$(date +%s)
"$sluice" conform --suite think --impl "python3 $impl" >"$out" 2>&1
rc=$?
secs=$(( $(date +%s) - t0 ))
fail=0
[ "$rc" = 1 ] || { echo "exit status $rc, expected 1"; fail=1; }
[ "$secs" -lt 60 ] || { echo "took $secs s, a minute or more"; fail=1; }
n=$(grep -c "does not implement streaming sessions" "$out")
[ "$n" = 1 ] || { echo "the streaming message is said $n times, not once"; fail=1; }
grep -Eq "^  single-cut +[1-9][0-9]* +[1-9][0-9]* +0 " "$out" ||
  { echo "the batch split modes did not run and pass"; fail=1; }
grep -Eq "^  stream-bytes +[1-9][0-9]* +0 +[1-9][0-9]* " "$out" ||
  { echo "the streaming split modes are not reported as failed"; fail=1; }
if [ "$fail" = 1 ]; then
  echo "--- output ---"
  head -c 6000 "$out"
  exit 1
fi
grep -E "passed, |^note:" "$out"
echo "batch_only: exit status 1 in $secs s, the streaming message once, batch modes run"
