#!/bin/sh
# Builds the WebAssembly module of the Node package: libsluice, the kit (its
# JSON options read by jansson_lite.c, jansson.h says why) and the bindings'
# shim, compiled with Debian's clang for wasm32-wasi against wasi-libc and
# linked by lld. No WASI import is left: the module does no I/O.
#
#   bindings/node/wasm/build.sh [OUT.wasm]     (default: bindings/node/dist/sluice.wasm)
#
# Needs clang, wasm-ld (lld) and wasi-libc (scripts/install-deps installs
# them; libclang-rt-14-dev-wasm32 for the compiler's builtins). $CLANG,
# $WASI_SYSROOT and $SLUICE_SOURCE_DIR override what is found. Exit status 77
# when a tool is missing (CTest's skip), with the reason.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
src=${SLUICE_SOURCE_DIR:-$(cd "$here/../../.." && pwd)}
out=${1:-$here/../dist/sluice.wasm}
clang=${CLANG:-}
if [ -z "$clang" ]; then
  for c in clang clang-19 clang-18 clang-17 clang-16 clang-15 clang-14; do
    if command -v "$c" >/dev/null 2>&1; then clang=$c; break; fi
  done
fi
[ -n "$clang" ] && command -v "$clang" >/dev/null 2>&1 ||
  { echo "build.sh: clang not found (apt-get install clang lld wasi-libc): skipped" >&2; exit 77; }
sysroot=${WASI_SYSROOT:-}
if [ -z "$sysroot" ]; then
  # Debian's wasi-libc: headers in /usr/include/wasm32-wasi, libc in
  # /usr/lib/wasm32-wasi; the wasi-sdk layout has one sysroot folder
  for s in /usr /usr/share/wasi-sysroot /opt/wasi-sdk/share/wasi-sysroot; do
    if [ -f "$s/lib/wasm32-wasi/libc.a" ]; then sysroot=$s; break; fi
  done
fi
[ -n "$sysroot" ] && [ -f "$sysroot/lib/wasm32-wasi/libc.a" ] ||
  { echo "build.sh: wasi-libc not found (apt-get install wasi-libc): skipped" >&2; exit 77; }
# the compiler's own builtins for wasm32 (128-bit multiplication, ...)
builtins=$("$clang" --target=wasm32-wasi -print-libgcc-file-name)
[ -f "$builtins" ] || { echo "build.sh: no $builtins (apt-get install libclang-rt-$("$clang" -dumpversion | cut -d. -f1)-dev-wasm32): skipped" >&2; exit 77; }
ld=$("$clang" -print-prog-name=wasm-ld)
command -v "$ld" >/dev/null 2>&1 || command -v wasm-ld >/dev/null 2>&1 ||
  { echo "build.sh: wasm-ld not found (apt-get install lld): skipped" >&2; exit 77; }
[ -f "$src/lib/include/sluice.h" ] || { echo "build.sh: no sluice sources at $src (set SLUICE_SOURCE_DIR)" >&2; exit 1; }

tmp=$(mktemp -d "${TMPDIR:-/tmp}/sluice-wasm-XXXXXX")
trap 'rm -rf "$tmp"' EXIT
# the version header CMake would generate, from the one place it is written
version=$(sed -n 's/^project(sluice VERSION \([0-9]*\.[0-9]*\.[0-9]*\).*/\1/p' "$src/CMakeLists.txt")
[ -n "$version" ] || { echo "build.sh: no project(sluice VERSION x.y.z) in CMakeLists.txt" >&2; exit 1; }
IFS=. read -r major minor patch <<EOV
$version
EOV
sed -e "s/@PROJECT_VERSION_MAJOR@/$major/" -e "s/@PROJECT_VERSION_MINOR@/$minor/" \
    -e "s/@PROJECT_VERSION_PATCH@/$patch/" -e "s/@PROJECT_VERSION@/$version/" \
    "$src/lib/include/sluice_version.h.in" > "$tmp/sluice_version.h"

# -flto: the shim, the exports and the filters optimised as one program
# (twice the speed of separate objects at 4-byte chunks, where the calls
# between them are most of the work)
flags="--target=wasm32-wasi --sysroot=$sysroot -O2 -flto -std=c11 -Wall -Wno-unused-command-line-argument
  -I$here -I$tmp -I$src/lib/include -I$src/lib/src/core -I$src/lib/src/kit -I$src/bindings/common"
# every source of the library (a new file is picked up), the kit, the shim,
# the exports, the jansson subset; jansson.h here shadows any other
objs=""
for c in "$src"/lib/src/*/*.c "$src/bindings/common/sluice_bind.c" "$here/exports.c" "$here/jansson_lite.c"; do
  o="$tmp/$(basename "$(dirname "$c")")_$(basename "$c" .c).o"
  # shellcheck disable=SC2086
  "$clang" $flags -c "$c" -o "$o"
  objs="$objs $o"
done
mkdir -p "$(dirname "$out")"
# a reactor (no main); a 1 MiB stack; memory grows as the filters need
# shellcheck disable=SC2086
"$clang" --target=wasm32-wasi --sysroot="$sysroot" -O2 -flto -mexec-model=reactor -fuse-ld=lld \
  -Wl,-z,stack-size=1048576 -Wl,--strip-all -o "$out" $objs
echo "built $out ($(wc -c < "$out") bytes)"
