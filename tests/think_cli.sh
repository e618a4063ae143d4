#!/bin/sh
# think_cli.sh SLUICE: `sluice think` on standard input: a format by name,
# the one a model's name selects (--explain says which), thinking off, the
# protocol's options, the channel written, and bad arguments refused with
# exit status 2 and the option named.
set -u
sluice=$1
fails=0
expect() { # WANT INPUT ARGS...: stdout of sluice think ARGS on INPUT
  want=$1 input=$2
  shift 2
  got=$(printf '%s' "$input" | "$sluice" think "$@" 2>/dev/null)
  if [ "$got" = "$want" ]; then
    echo "ok   think $* <<< $input"
  else
    echo "FAIL think $* <<< $input: got \"$got\", want \"$want\"" >&2
    fails=$((fails + 1))
  fi
}
refuse() { # PATTERN ARGS...: exit status 2 and PATTERN on stderr
  pat=$1
  shift
  err=$(printf 'x' | "$sluice" think "$@" 2>&1 >/dev/null)
  rc=$?
  if [ $rc -eq 2 ] && printf '%s' "$err" | grep -q -- "$pat"; then
    echo "ok   think $* refused"
  else
    echo "FAIL think $*: exit status $rc, said \"$err\"" >&2
    fails=$((fails + 1))
  fi
}
# R1: the template opened <think>, the output starts inside it
expect '4' 'why</think>4' --format deepseek-r1
expect 'why' 'why</think>4' --format deepseek-r1 --channel thought
expect '4' 'why</think>4' --model deepseek-reasoner
expect '4' 'why</think>4' --model deepseek-ai/DeepSeek-R1-0528
# channel mode (no model, or one no rule matches): a lone close is text
expect 'why</think>4' 'why</think>4'
expect 'why</think>4' 'why</think>4' --model gpt-4o
# thinking off: the stream is all answer
expect 'why</think>4' 'why</think>4' --format qwen3 --thinking off
expect 'why</think>4' 'why</think>4' --model Qwen/Qwen3-30B-A3B-Instruct-2507
# qwen3: a tool call ends the reasoning and stays in the answer
expect '<tool_call>{}</tool_call>' 'plan<tool_call>{}</tool_call>' --format qwen3
expect 'ok' '[THINK]hm[/THINK]ok' --model magistral-medium-2507
expect 'b' '<plan>a</plan>b' --options '{"tags":["plan"]}'
expl=$(printf '' | "$sluice" think --model qwen3-8b --explain 2>&1)
case $expl in
*'format qwen3, thinking on: rule "qwen3*"'*) echo "ok   --explain" ;;
*) echo "FAIL --explain said \"$expl\"" >&2; fails=$((fails + 1)) ;;
esac
refuse '--format: no reasoning format "r2"' --format r2
refuse 'harmony' --format gpt-oss
refuse '--thinking: must be off or on' --thinking maybe
refuse '--options: option "tags"' --options '{"tags":3}'
refuse 'has its own tags' --format qwen3 --options '{"tags":["x"]}'
[ $fails -eq 0 ] && echo "think_cli: all passed"
[ $fails -eq 0 ]
