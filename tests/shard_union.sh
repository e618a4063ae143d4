# shard_union.sh, sourced by shard_check.sh and gate_shard.sh:
# shards_are_the_run DIR N RUN: RUN K N prints the sorted case names of
# shard K of N; each shard is written to DIR/sK, and together the N must be
# DIR/all (the whole run's names, sorted), each name in one shard only.
# Returns 1 after saying what differs.
shards_are_the_run() {
  sd=$1
  sn=$2
  : >"$sd/union"
  sk=1
  while [ "$sk" -le "$sn" ]; do
    "$3" "$sk" "$sn" >"$sd/s$sk"
    [ -s "$sd/s$sk" ] || { echo "shard $sk/$sn is empty"; return 1; }
    cat "$sd/s$sk" >>"$sd/union"
    sk=$((sk + 1))
  done
  sort "$sd/union" >"$sd/union.sorted"
  if ! cmp -s "$sd/all" "$sd/union.sorted"; then
    echo "the $sn shards together are not the whole run:"
    diff "$sd/all" "$sd/union.sorted" | head -20
    return 1
  fi
  sdups=$(uniq -d "$sd/union.sorted" | wc -l)
  [ "$sdups" = 0 ] || { echo "$sdups cases in two shards of $sn"; return 1; }
  echo "$sn shards: $(wc -l <"$sd/s1") + ... = $(wc -l <"$sd/all") cases, each in one shard"
}
