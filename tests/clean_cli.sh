#!/bin/sh
# clean_cli.sh SLUICE README: `sluice clean` on the example config of the clean
# suite's README, whole and with --stream, must print the README's answer.
set -eu
sluice=$1
readme=$2
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
# the first ```json block of the README is the example config
sed -n '/^```json$/,/^```$/p' "$readme" | sed '1d;$d' | sed '/^```/,$d' > "$dir/config.json"
printf '\n<think>Let me plan.</think>\nResponse: Bot: [Sent less than a minute ago] Assistant: Hello there!\n\n' > "$dir/in.txt"
printf 'Hello there!' > "$dir/want.txt"
"$sluice" clean --config "$dir/config.json" < "$dir/in.txt" > "$dir/whole.txt"
cmp "$dir/want.txt" "$dir/whole.txt"
# --stream, with the input arriving in pieces through a pipe
{ printf '\n<think>Let me'; sleep 0.1; printf ' plan.</think>\nResponse: Bot: [Sent less'
  sleep 0.1; printf ' than a minute ago] Assistant: Hello there!\n\n'; } |
  "$sluice" clean --config "$dir/config.json" --stream > "$dir/stream.txt"
cmp "$dir/want.txt" "$dir/stream.txt"
# a proxy's endpoint settings pasted in whole: the foreign keys are reported
# and ignored, the cleaning settings used
printf '{"endpoint": {"endpoint": "http://127.0.0.1:5000", "maxContextTokenSize": 8192,
  "removeThinking": true, "trimBeginningAndEndLineBreaks": true}}' > "$dir/proxy.json"
printf '<think>x</think>  answer 
' | "$sluice" clean --config "$dir/proxy.json" \
  > "$dir/proxy.txt" 2> "$dir/warn.txt"
printf 'answer' | cmp - "$dir/proxy.txt"
grep -q 'ignoring endpoint.maxContextTokenSize' "$dir/warn.txt"
# with --strict, and for a wrong type always, a bad config is refused, naming the key
if "$sluice" clean --strict --config "$dir/proxy.json" < "$dir/in.txt" 2> "$dir/err.txt"; then
  exit 1
fi
grep -q '"endpoint"' "$dir/err.txt"
printf '{"node": {"responseStartTextToRemove": [1]}}' > "$dir/bad.json"
if "$sluice" clean --config "$dir/bad.json" < "$dir/in.txt" 2> "$dir/err.txt"; then exit 1; fi
grep -q 'responseStartTextToRemove' "$dir/err.txt"
echo "clean_cli: ok"
