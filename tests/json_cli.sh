#!/bin/sh
# json_cli.sh SLUICE: `sluice json --log` names why valid JSON that jansson
# cannot load is unloadable (reason and input offset) after "truncated", and
# says nothing of it when the text loads; the text is printed either way.
set -u
sluice=$1
fails=0
expect() { # INPUT WANT_STDOUT WANT_STDERR [ARGS...]
  input=$1 want_out=$2 want_err=$3
  shift 3
  errf=$(mktemp)
  got=$(printf '%b' "$input" | "$sluice" json --log "$@" 2>"$errf")
  rc=$?
  err=$(cat "$errf")
  rm -f "$errf"
  if [ $rc -eq 0 ] && [ "$got" = "$want_out" ] && [ "$err" = "$want_err" ]; then
    echo "ok   json --log $* <<< $input"
  else
    echo "FAIL json --log $* <<< $input: exit status $rc, stdout \"$got\", stderr \"$err\"" >&2
    fails=$((fails + 1))
  fi
}
nl='
'
expect '{"a\\u0000b":1}' '{"a\u0000b":1}' "truncated false${nl}unloadable nul_in_key at 3"
expect '[1e400]' '[1e400]' "truncated false${nl}unloadable number_overflow at 1"
expect '[1, {"a": [-2e999]}]' '[1,{"a":[-2e999]}]' "truncated false${nl}unloadable number_overflow at 11"
# a raw NUL byte in a key is escaped (a repair) and marked at the byte
expect '{"a\0":1}' '{"a\u0000":1}' "repair control_char at 3${nl}truncated false${nl}unloadable nul_in_key at 3"
# cut off: the mark comes after "truncated true"
expect '{"x": [1e400' '{"x":[1e400]}' "repair unclosed_container at 12${nl}truncated true${nl}unloadable number_overflow at 7"
# 1e-400 and \u0000 in a value load: no mark
expect '[1e-400, "a\\u0000"]' '[1e-400,"a\u0000"]' "truncated false"
if [ $fails -eq 0 ]; then echo "json_cli: all passed"; else echo "json_cli: $fails failed"; exit 1; fi
