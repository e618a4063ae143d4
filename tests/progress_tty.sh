#!/bin/sh
# progress_tty.sh SLUICE BADIMPL MW: the progress line ("sluice conform: 3
# of 3 cases, 0 failed") is drawn on stderr when it is a terminal (script(1)
# gives the command one), by conform, diff and gate; not under -q, and not
# when stderr is a pipe. Skipped (77) without script(1) or python3.
set -u
sluice=$1
bad=$2
mw=$3
command -v script >/dev/null || { echo "script(1) not found: skipped"; exit 77; }
command -v python3 >/dev/null || { echo "python3 not found: skipped"; exit 77; }
cases="--suite think/channel-basics.json --case y_block_in_middle --case y_plain_text --case y_tag_thinking"
gate="$sluice gate --url http://127.0.0.1:{port} --suite sse --resplit none --rechunk none"
gate="$gate --middleware 'python3 $mw pass --port {port} --deadline 60'"
fail=0
# on_tty NAME EXPECT COMMAND: COMMAND's terminal shows EXPECT (or, when
# EXPECT is "-", no progress line at all).
on_tty() {
  out=$(script -qec "$3" /dev/null 2>&1 | tr '\r' '\n')
  if [ "$2" = "-" ]; then
    if printf '%s\n' "$out" | grep -Eq "^.*sluice [a-z]+: [0-9]+ of [0-9]+ "; then
      echo "$1: a progress line where none belongs"; fail=1
    fi
  elif ! printf '%s\n' "$out" | grep -Eq "$2"; then
    echo "$1: no \"$2\" on the terminal:"; printf '%s\n' "$out" | head -5; fail=1
  fi
}
on_tty conform "sluice conform: 3 of 3 cases, 0 failed" "$sluice conform $cases --impl '$bad good'"
on_tty conform-failed "sluice conform: 3 of 3 cases, [1-3] failed" "$sluice conform $cases --impl '$bad chunky'"
on_tty conform-q - "$sluice conform -q $cases --impl '$bad good'"
on_tty conform-pipe - "$sluice conform $cases --impl '$bad good' 2>&1 | cat"
on_tty diff "sluice diff: [0-9]+ of [0-9]+ cells" "$sluice diff $cases -j 1 --impl 'good=$bad good'"
on_tty gate "sluice gate: 7 of 7 variants, 0 failed" "$gate"
on_tty gate-q - "$gate -q"
[ "$fail" = 0 ] && echo "progress line: conform, diff and gate on a terminal; none under -q or in a pipe"
exit "$fail"
