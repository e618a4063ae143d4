#!/bin/sh
# cli_help.sh SLUICE: every command and benchmark answers --help with its
# generated help (exit status 0, "usage: sluice NAME" first, no line past
# 79 columns), and an unknown option with "sluice NAME: --option: unknown
# option" and exit status 2.
set -u
sluice=$1
fails=0
fail() {
  echo "FAIL $*" >&2
  fails=$((fails + 1))
}
check() { # NAME WORDS...: the command line of NAME
  name=$1
  shift
  before=$fails
  out=$("$@" --help 2>&1)
  rc=$?
  [ $rc -eq 0 ] || fail "$name --help: exit status $rc"
  printf '%s\n' "$out" | head -n 1 | grep -q "^usage: sluice $name" ||
    fail "$name --help: the first line is not \"usage: sluice $name\""
  long=$(printf '%s\n' "$out" | awk 'length($0) > 79' | head -n 1)
  [ -z "$long" ] || fail "$name --help: a line past 79 columns: $long"
  err=$("$@" --no-such-option 2>&1 >/dev/null)
  rc=$?
  [ $rc -eq 2 ] || fail "$name --no-such-option: exit status $rc"
  printf '%s\n' "$err" | grep -q "^sluice $name: --no-such-option: unknown option" ||
    fail "$name --no-such-option: said \"$err\""
  [ $fails -eq $before ] && echo "ok   $name"
}
for c in proto conform diff mkcorpus think clean json replay serve record gate; do
  check "$c" "$sluice" "$c"
done
check "capture import" "$sluice" capture import
for b in think clean harmony monitor json sse replay peers all; do
  check "bench $b" "$sluice" bench "$b"
done
[ $fails -eq 0 ] && echo "cli_help: all passed"
[ $fails -eq 0 ]
