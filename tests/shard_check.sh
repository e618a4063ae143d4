#!/bin/sh
# shard_check.sh SLUICE: `sluice conform --shard 1/2` and `--shard 2/2`
# run disjoint sets of cases whose union is exactly the cases of the whole
# run (every suite, the whole-input mode only, so it takes seconds), and
# three shards do the same.
set -u
sluice=$1
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
ids() { # the suite/case of every record of a JSON run, sorted
  sed -n 's/.*"record":"case","suite":"\([^"]*\)","file":"[^"]*","case":"\([^"]*\)".*/\1\/\2/p' | sort
}
"$sluice" conform --modes whole -q --format json 2>/dev/null | ids >"$dir/all"
[ -s "$dir/all" ] || { echo "the whole run gave no records"; exit 1; }
for n in 2 3; do
  : >"$dir/union"
  k=1
  while [ "$k" -le "$n" ]; do
    "$sluice" conform --modes whole -q --format json --shard "$k/$n" 2>/dev/null | ids >"$dir/s$k"
    [ -s "$dir/s$k" ] || { echo "shard $k/$n is empty"; exit 1; }
    cat "$dir/s$k" >>"$dir/union"
    k=$((k + 1))
  done
  sort "$dir/union" >"$dir/union.sorted"
  if ! cmp -s "$dir/all" "$dir/union.sorted"; then
    echo "the $n shards together are not the whole run:"
    diff "$dir/all" "$dir/union.sorted" | head -20
    exit 1
  fi
  dups=$(uniq -d "$dir/union.sorted" | wc -l)
  [ "$dups" = 0 ] || { echo "$dups cases in two shards of $n"; exit 1; }
  echo "$n shards: $(wc -l <"$dir/s1") + ... = $(wc -l <"$dir/all") cases, each in one shard"
done
