#!/bin/sh
# The library alone, as a user without jansson or any HTTP library builds it:
# pkg-config pointed at an empty folder, so no package is found.
#  - left at their defaults, the kit and the tools turn themselves off, and
#    the configure says why;
#  - asked for on the command line, the kit fails the configure, naming jansson;
#  - with -DSLUICE_BUILD_KIT=OFF -DSLUICE_BUILD_TOOLS=OFF, libsluice builds,
#    its unit tests pass, libsluice.so needs libc only, and the installed tree
#    holds sluice.h and libsluice and nothing of the kit or the command.
# usage: core_only.sh SOURCE_DIR WORK_DIR
set -u
src=$1
work=$2
rm -rf "$work"
mkdir -p "$work/empty-pkgconfig"
export PKG_CONFIG_LIBDIR="$work/empty-pkgconfig" PKG_CONFIG_PATH=""
fail() {
  echo "core_only: $*" >&2
  exit 1
}

cmake -S "$src" -B "$work/defaults" >"$work/defaults.log" 2>&1 ||
  { cat "$work/defaults.log"; fail "the default configure failed without jansson"; }
grep -q "SLUICE_BUILD_KIT: off, pkg-config finds no jansson" "$work/defaults.log" ||
  { cat "$work/defaults.log"; fail "the configure did not say why the kit is off"; }
grep -q "SLUICE_BUILD_TOOLS: off, the kit is off" "$work/defaults.log" ||
  fail "the configure did not say why the tools are off"

if cmake -S "$src" -B "$work/asked" -DSLUICE_BUILD_KIT=ON >"$work/asked.log" 2>&1; then
  fail "-DSLUICE_BUILD_KIT=ON configured without jansson"
fi
grep -q "SLUICE_BUILD_KIT is ON but pkg-config finds no jansson" "$work/asked.log" ||
  { cat "$work/asked.log"; fail "the failed configure did not name jansson"; }

b="$work/build"
cmake -S "$src" -B "$b" -DSLUICE_BUILD_KIT=OFF -DSLUICE_BUILD_TOOLS=OFF \
  -DCMAKE_INSTALL_PREFIX="$work/root" >"$work/configure.log" 2>&1 ||
  { cat "$work/configure.log"; fail "configure failed"; }
cmake --build "$b" -j2 >"$work/build.log" 2>&1 || { tail -40 "$work/build.log"; fail "build failed"; }
(cd "$b" && ctest --output-on-failure) || fail "the core tests failed"
n=$(cd "$b" && ctest -N | sed -n 's/^Total Tests: //p')
[ "${n:-0}" -ge 6 ] || fail "only ${n:-0} tests in the core build"

deps=$(ldd "$b/libsluice.so" | grep -v -e 'libc\.so' -e 'linux-vdso' -e 'ld-linux')
[ -z "$deps" ] || fail "libsluice.so needs more than libc: $deps"

cmake --install "$b" >"$work/install.log" 2>&1 || { cat "$work/install.log"; fail "install failed"; }
[ -f "$work/root/include/sluice.h" ] || fail "sluice.h not installed"
[ ! -e "$work/root/include/sluice_kit.h" ] || fail "sluice_kit.h installed without the kit"
[ ! -e "$work/root/bin/sluice" ] || fail "the sluice command installed without the tools"
ls "$work/root"/lib*/libsluice.so* >/dev/null 2>&1 || fail "libsluice.so not installed"
ls "$work/root"/lib*/libsluice-kit* >/dev/null 2>&1 && fail "libsluice-kit installed without the kit"

# a program of the header's example, against the installed tree only
cc -std=c11 -pedantic -Wall -Werror -I"$work/root/include" "$src/tests/consumer/consumer.c" \
  -L"$work/root/lib" -Wl,-rpath,"$work/root/lib" -lsluice -o "$work/consumer" ||
  fail "a program against the installed library does not build"
"$work/consumer" || fail "the consumer failed"
echo "core_only: $n core tests passed; libsluice.so needs libc only; the kit and the command stay out"
