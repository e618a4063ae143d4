#!/bin/sh
# junit_check.sh SLUICE BADIMPL PYTHON_FILTER XSD OUTDIR: JUnit reports with
# failures (a chunk-dependent implementation), errors (one that crashes),
# skips (one that supports part of a suite) and plain passes must validate
# against the JUnit schema, and must count what happened.
set -u
sluice=$1 bad=$2 pyfilter=$3 xsd=$4 out=$5
command -v xmllint >/dev/null || { echo "xmllint not found (package libxml2-utils): skipped"; exit 77; }
mkdir -p "$out"
rm -f "$out/crash.marker"
fail=0
report() { # name, expected counts as tests/failures/errors/skipped regexps, conform args
  name=$1 want=$2
  shift 2
  "$sluice" conform --format junit --quiet "$@" > "$out/$name.xml" 2> "$out/$name.err"
  if ! xmllint --noout --schema "$xsd" "$out/$name.xml" 2> "$out/$name.lint"; then
    echo "$name: the report does not validate:"; cat "$out/$name.lint"; fail=1; return
  fi
  if ! grep -Eq "<testsuites name=\"sluice conform\" $want" "$out/$name.xml"; then
    echo "$name: expected counts $want in:"; head -3 "$out/$name.xml"; fail=1; return
  fi
  if ! grep -Eq "<property name=\"suites\" value=\"version [^,]+, digest [0-9a-f]{16}, " "$out/$name.xml"; then
    echo "$name: no suites property (the suites' version and digest) in:"; head -6 "$out/$name.xml"; fail=1; return
  fi
  echo "$name: valid, $want"
}
report pass 'tests="29" failures="0" errors="0" skipped="0"' --suite think/channel-basics.json
report failures 'tests="1" failures="1" errors="0" skipped="0"' \
  --suite think/channel-basics.json --case y_block_in_middle --impl "$bad chunky"
for mode in single-cut pair-cuts byte-at-a-time random; do # each failing mode's own report
  grep -q "split mode $mode[;:]" "$out/failures.xml" ||
    { echo "failures: no report of split mode $mode"; fail=1; }
done
BADIMPL_MARKER=$out/crash.marker report errors 'tests="29" failures="0" errors="1" skipped="0"' \
  --suite think/channel-basics.json -j 1 --impl "$bad crash-once"
if command -v python3 >/dev/null; then
  report skips 'tests="26" failures="0" errors="0" skipped="17"' \
    --suite think/channel-options.json --impl "python3 $pyfilter"
fi
exit $fail
