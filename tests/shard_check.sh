#!/bin/sh
# shard_check.sh SLUICE: `sluice conform --shard 1/2` and `--shard 2/2`
# run disjoint sets of cases whose union is exactly the cases of the whole
# run (every suite, the whole-input mode only, so it takes seconds), and
# three shards do the same.
set -u
sluice=$1
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
. "$(dirname "$0")/shard_union.sh"
ids() { # the suite/case of every record of a JSON run, sorted
  sed -n 's/.*"record":"case","suite":"\([^"]*\)","file":"[^"]*","case":"\([^"]*\)".*/\1\/\2/p' | sort
}
"$sluice" conform --modes whole -q --format json 2>/dev/null | ids >"$dir/all"
[ -s "$dir/all" ] || { echo "the whole run gave no records"; exit 1; }
shard() { "$sluice" conform --modes whole -q --format json --shard "$1/$2" 2>/dev/null | ids; }
for n in 2 3; do
  shards_are_the_run "$dir" "$n" shard || exit 1
done
