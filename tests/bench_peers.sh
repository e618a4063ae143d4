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
for p in ai-sdk jsonrepair jsonrepair-stream partial-json best-effort-json-parser \
         ai-sdk-partial-json eventsource-parser event-loop; do
  # a row: filter, the peer, the chunk, MB/s as a number
  echo "$out" | grep -Eq "^[a-z-]+ +$p +[0-9]+ +[0-9.]+ " || { echo "no figures for $p"; fail=1; }
done
for f in think json sse; do
  echo "$out" | grep -Eq "^$f +sluice.* reference$" || { echo "no reference row for $f"; fail=1; }
done
echo "$out" | grep -Eq 'failed:|NO OUTPUT' && { echo 'a peer failed or made no output'; fail=1; }
exit $fail
