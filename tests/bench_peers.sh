#!/bin/sh
# A smoke run of `sluice bench peers --quick`: it runs, and every peer has
# a row with figures and output (no timing is checked). Skipped (77) when
# node or the npm peers are missing, as diff_peers is.
#   sh bench_peers.sh SLUICE PEERS_DIR
sluice=$1 peers=$2
command -v node >/dev/null || { echo 'node not found: skipped'; exit 77; }
for p in ai jsonrepair partial-json best-effort-json-parser eventsource-parser; do
  [ -d "$peers/node_modules/$p" ] || { echo 'the npm peers are not installed (scripts/install-peers): skipped'; exit 77; }
done
out=$("$sluice" bench peers --quick --reps 1) || { echo "$out"; echo 'sluice bench peers failed'; exit 1; }
echo "$out"
fail=0
# a row: filter, input kind, the implementation, the chunk, MB/s as a number
for p in ai-sdk event-loop; do
  echo "$out" | grep -Eq "^think +dense +$p +[0-9]+ +[0-9.]+ " || { echo "no figures for $p"; fail=1; }
done
for p in jsonrepair jsonrepair-stream partial-json best-effort-json-parser ai-sdk-partial-json; do
  # valid JSON: every peer makes the same value as the reference
  echo "$out" | grep -Eq "^json +valid +$p +[0-9]+ +[0-9.]+ .* same$" || { echo "no figures for $p"; fail=1; }
done
echo "$out" | grep -Eq "^sse +openai +eventsource-parser +[0-9]+ +[0-9.]+ " || { echo "no figures for eventsource-parser"; fail=1; }
for f in think json sse; do
  echo "$out" | grep -Eq "^$f +[a-z-]+ +sluice[a-z+-]* .* reference$" || { echo "no reference row for $f"; fail=1; }
done
# scaling columns: t(2N)/t(N) as a number for the reference
echo "$out" | grep -Eq "^think +dense +sluice +4 .* [0-9]+\.[0-9]{2} +[0-9]+\.[0-9]{2}  reference$" ||
  { echo 'no t(2N)/t(N) columns'; fail=1; }
echo "$out" | grep -Eq 'NO OUTPUT' && { echo 'a peer made no output'; fail=1; }
exit $fail
