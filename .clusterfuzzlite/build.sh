#!/bin/bash -eu
# Builds the fuzz targets for OSS-Fuzz and ClusterFuzzLite, run from the
# root of a sluice checkout under their contract: $CC, $CXX, $CFLAGS and
# $CXXFLAGS (the sanitizer and -fsanitize=fuzzer-no-link in them),
# $LIB_FUZZING_ENGINE to link, $SANITIZER, $SRC and $OUT (and $WORK for
# scratch, when given). Every target goes to $OUT as fuzz_NAME with
# fuzz_NAME_seed_corpus.zip (corpus/fuzz/NAME), fuzz_NAME.dict and
# fuzz_NAME.options. jansson is built from $SRC/jansson when the Dockerfile
# fetched it there (instrumented like the rest), else taken from the system
# through pkg-config.
src=$(pwd)
work=${WORK:-$OUT/../work}
mkdir -p "$work" "$OUT"
echo "sluice: building the fuzz targets for $SANITIZER into $OUT"

if [ -d "$SRC/jansson" ]; then
  cmake -S "$SRC/jansson" -B "$work/jansson" -DJANSSON_BUILD_DOCS=OFF -DJANSSON_EXAMPLES=OFF \
    -DJANSSON_WITHOUT_TESTS=ON -DJANSSON_BUILD_SHARED_LIBS=OFF \
    -DCMAKE_INSTALL_PREFIX="$work/deps" -DCMAKE_INSTALL_LIBDIR=lib
  cmake --build "$work/jansson" -j"$(nproc)"
  cmake --install "$work/jansson"
  export PKG_CONFIG_PATH="$work/deps/lib/pkgconfig${PKG_CONFIG_PATH:+:$PKG_CONFIG_PATH}"
fi

# The kit and the tools only: the network and import commands are not fuzzed.
cmake -S "$src" -B "$work/sluice" -DCMAKE_BUILD_TYPE=Release -DBUILD_TESTING=OFF \
  -DSLUICE_FUZZ_ENGINE="$LIB_FUZZING_ENGINE" -DSLUICE_BUILD_KIT=ON -DSLUICE_BUILD_TOOLS=ON \
  -DSLUICE_WITH_ZLIB=OFF -DSLUICE_WITH_SERVE=OFF -DSLUICE_WITH_RECORD=OFF \
  -DSLUICE_WITH_IMPORT=OFF -DSLUICE_WITH_GATE=OFF -DCMAKE_C_FLAGS_RELEASE="" \
  -DCMAKE_CXX_FLAGS_RELEASE=""
# (fuzz_serve and fuzz_import_*, the network and import edges, need
# libmicrohttpd and libyaml: fuzz/run runs them here, not in this image.)
targets=$(cd "$src/fuzz" && ls fuzz_*.c | sed 's/\.c$//' |
  grep -vx -e fuzz_common -e fuzz_serve -e 'fuzz_import_.*')
# shellcheck disable=SC2086 # one target name per word
cmake --build "$work/sluice" -j"$(nproc)" --target $targets

# A seed corpus as a flat zip ($1: folder, $2: the zip).
seed_zip() {
  if command -v zip >/dev/null 2>&1; then
    local out
    out=$(cd "$(dirname "$2")" && pwd)/$(basename "$2")
    (cd "$1" && zip -q -X -r "$out" .)
  else
    python3 - "$1" "$2" <<'PY'
import os, sys, zipfile
folder, out = sys.argv[1], sys.argv[2]
with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as z:
    for name in sorted(os.listdir(folder)):
        z.write(os.path.join(folder, name), name)
PY
  fi
}

for t in $targets; do
  name=${t#fuzz_}
  cp "$work/sluice/fuzz/$t" "$OUT/$t"
  rm -f "$OUT/${t}_seed_corpus.zip"
  seed_zip "$src/corpus/fuzz/$name" "$OUT/${t}_seed_corpus.zip"
  cp "$src/fuzz/$t.dict" "$OUT/$t.dict"
  # the memory limits of fuzz/run: the bound on held bytes must hold under them
  printf '[libfuzzer]\ndict = %s.dict\nrss_limit_mb = 1024\nmalloc_limit_mb = 512\ntimeout = 10\n' \
    "$t" > "$OUT/$t.options"
done
echo "sluice: $(echo "$targets" | wc -w) fuzz targets in $OUT"
