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
# a bad config is reported, naming the key
printf '{"node": {"responseStartTextToRemoveX": []}}' > "$dir/bad.json"
if "$sluice" clean --config "$dir/bad.json" < "$dir/in.txt" 2> "$dir/err.txt"; then exit 1; fi
grep -q 'responseStartTextToRemoveX' "$dir/err.txt"
echo "clean_cli: ok"
