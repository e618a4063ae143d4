#!/bin/sh
# cflite_check.sh SRC WORK: runs .clusterfuzzlite/build.sh from the root of
# the source tree under the OSS-Fuzz contract (clang, AddressSanitizer,
# -fsanitize=fuzzer-no-link in CFLAGS, $LIB_FUZZING_ENGINE, a scratch $SRC,
# $WORK and $OUT), then checks $OUT: every fuzz target of fuzz/ is there
# with its seed corpus zip (the files of corpus/fuzz/NAME), its dictionary
# and its .options, and each runs under libFuzzer (seed 1, 3000 runs) from its
# unzipped seeds without a finding. The workflows (.github/workflows/
# cflite_*.yml) are read too: they build with that build.sh's project for
# both sanitizers, fuzz a pull request 600 s and prune in the daily batch.
set -eu
src=$1 work=$2
# a fixed seed and count, so that the test is the same on every run (a
# finding reproduces); the time is a cap only
runs=${CFLITE_RUNS:-3000} secs=${CFLITE_SECONDS:-10}
for c in clang clang++ python3; do
  command -v $c >/dev/null || { echo "$c not found: skipped"; exit 77; }
done
rm -rf "$work"
mkdir -p "$work/src" "$work/out" "$work/work" "$work/seeds" "$work/runs"
export SRC="$work/src" OUT="$work/out" WORK="$work/work" CC=clang CXX=clang++ SANITIZER=address
export CFLAGS="-O1 -fno-omit-frame-pointer -gline-tables-only -fsanitize=address -fsanitize-address-use-after-scope -fsanitize=fuzzer-no-link"
export CXXFLAGS="$CFLAGS" LIB_FUZZING_ENGINE=-fsanitize=fuzzer
(cd "$src" && bash .clusterfuzzlite/build.sh) > "$work/build.log" 2>&1 || {
  tail -30 "$work/build.log"
  echo "cflite: build.sh failed (log: $work/build.log)"
  exit 1
}
fail() {
  echo "cflite: $*"
  exit 1
}
# the workflows, when python3-yaml is there to read them
python3 - "$src/.github/workflows" <<'PY' || fail "the ClusterFuzzLite workflows"
import os, sys
try:
    import yaml
except ImportError:
    print("python3-yaml not found: the workflows not read"); sys.exit(0)
d = sys.argv[1]
def steps(name):
    w = yaml.safe_load(open(os.path.join(d, name)))
    return [(j, s) for j in w["jobs"].values() for s in j["steps"]]
def check(name, mode, seconds):
    st = steps(name)
    runs = [s["with"] for _, s in st if s.get("uses", "").startswith("google/clusterfuzzlite/actions/run_fuzzers@")]
    builds = [s["with"] for _, s in st if s.get("uses", "").startswith("google/clusterfuzzlite/actions/build_fuzzers@")]
    if not builds or any(b.get("language") != "c" for b in builds):
        sys.exit("%s: no build_fuzzers step for C" % name)
    modes = {r["mode"]: r for r in runs}
    if mode not in modes or int(modes[mode]["fuzz-seconds"]) != seconds:
        sys.exit("%s: no %s run of %d s" % (name, mode, seconds))
    sans = [j.get("strategy", {}).get("matrix", {}).get("sanitizer") for j, s in st if s.get("with", {}).get("mode") == mode]
    if sans != [["address", "undefined"]]:
        sys.exit("%s: the %s run is not for address and undefined: %s" % (name, mode, sans))
check("cflite_pr.yml", "code-change", 600)
check("cflite_batch.yml", "batch", 3600)
if "prune" not in [s.get("with", {}).get("mode") for _, s in steps("cflite_batch.yml")]:
    sys.exit("cflite_batch.yml: no prune run")
print("cflite: the workflows fuzz pull requests (600 s) and daily (batch, prune), address and undefined")
PY
n=0
for f in "$src"/fuzz/fuzz_*.c; do
  t=$(basename "$f" .c)
  case $t in
  fuzz_common | fuzz_serve | fuzz_import_*) continue ;; # not in the image (build.sh)
  esac
  name=${t#fuzz_}
  n=$((n + 1))
  [ -x "$OUT/$t" ] || fail "$OUT/$t is missing"
  cmp -s "$OUT/$t.dict" "$src/fuzz/$t.dict" || fail "$t.dict is not fuzz/$t.dict"
  grep -qx "dict = $t.dict" "$OUT/$t.options" || fail "$t.options does not name its dictionary"
  grep -qx '\[libfuzzer\]' "$OUT/$t.options" || fail "$t.options has no [libfuzzer] section"
  # the zip holds exactly the seeds, byte for byte
  python3 - "$OUT/${t}_seed_corpus.zip" "$src/corpus/fuzz/$name" "$work/seeds/$name" <<'PY' ||
import os, sys, zipfile
zpath, corpus, dest = sys.argv[1:]
with zipfile.ZipFile(zpath) as z:
    names = sorted(z.namelist())
    want = sorted(os.listdir(corpus))
    if names != want:
        sys.exit("%s: %d entries, corpus has %d files" % (zpath, len(names), len(want)))
    for n in names:
        if z.read(n) != open(os.path.join(corpus, n), "rb").read():
            sys.exit("%s: %s differs from the corpus file" % (zpath, n))
    z.extractall(dest)
PY
    fail "the seed corpus of $t"
  seeds=$(ls "$work/seeds/$name" | wc -l)
  mkdir -p "$work/runs/$name"
  log=$work/runs/$name.log
  if ! "$OUT/$t" -seed=1 -runs="$runs" -max_total_time="$secs" -dict="$OUT/$t.dict" -rss_limit_mb=1024 \
       -malloc_limit_mb=512 -timeout=10 -print_final_stats=1 -artifact_prefix="$work/runs/$name-" \
       "$work/runs/$name" "$work/seeds/$name" > "$log" 2>&1; then
    tail -20 "$log"
    fail "$t found something or failed (log: $log)"
  fi
  execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -1)
  [ -n "$execs" ] && [ "$execs" -ge "$seeds" ] ||
    fail "$t ran ${execs:-no} inputs of its $seeds seeds (log: $log)"
  echo "ok   $t: $seeds seeds, $execs executions (seed 1, at most $runs runs or ${secs}s)"
done
[ "$n" -ge 12 ] || fail "only $n fuzz targets in fuzz/"
echo "cflite: build.sh gave the $n targets with their seeds, dictionaries and options; each ran"
