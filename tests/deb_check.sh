#!/bin/sh
# deb_check.sh BUILD SRC WORK: builds the Debian package of the build
# folder (cpack -G DEB) and checks it from outside the tree:
# - its control fields, and Depends naming the package of every shared
#   library the sluice command and libsluice-kit link (from their ELF
#   NEEDED entries and dpkg -S, not from a list kept here);
# - its files: the libraries, headers, pkg-config and CMake files, the
#   command, the suites, FORMAT.md, and no sluice-build-paths;
# - unpacked with dpkg -x into a scratch root: the install consumer
#   (tests/consumer) builds with find_package(sluice) and pkg-config from
#   there and runs, and the unpacked sluice finds its suites beside itself:
#   `sluice conform --suite think` passes every case.
set -eu
build=$1 src=$2 work=$3
for c in cpack dpkg-deb dpkg-shlibdeps cc pkg-config; do
  command -v $c >/dev/null || { echo "$c not found: skipped"; exit 77; }
done
rm -rf "$work"
mkdir -p "$work"
fail() {
  echo "deb: $*"
  exit 1
}
cpack -G DEB -B "$work/pkg" --config "$build/CPackConfig.cmake" > "$work/cpack.log" 2>&1 ||
  { tail -20 "$work/cpack.log"; fail "cpack failed (log: $work/cpack.log)"; }
deb=$(ls "$work"/pkg/*.deb)
[ "$(echo "$deb" | wc -l)" -eq 1 ] || fail "expected one package, found: $deb"
echo "deb: $(basename "$deb")"
field() { dpkg-deb -f "$deb" "$1"; }
[ "$(field Package)" = sluice ] || fail "Package is $(field Package)"
[ "$(field Architecture)" = "$(dpkg --print-architecture)" ] || fail "Architecture is $(field Architecture)"
[ -n "$(field Description)" ] && [ -n "$(field Maintainer)" ] && [ -n "$(field Version)" ] ||
  fail "a control field is empty"
depends=$(field Depends)
echo "deb: Depends: $depends"

dpkg-deb -c "$deb" | awk '{print $6}' | sed 's#^\./#/#' > "$work/files.txt"
for f in /usr/include/sluice.h /usr/include/sluice_version.h /usr/include/sluice_kit.h \
         /usr/bin/sluice /usr/share/sluice/conformance/FORMAT.md \
         /usr/share/sluice/conformance/suites/think/ /usr/share/doc/sluice/DESIGN.md; do
  grep -qx "$f" "$work/files.txt" || fail "$f is not in the package"
done
for pat in '/libsluice\.so\.[0-9]' '/libsluice-kit\.so\.[0-9]' '/libsluice\.a$' \
           '/pkgconfig/sluice\.pc$' '/pkgconfig/sluice-kit\.pc$' '/cmake/sluice/sluiceConfig\.cmake$' \
           '/cmake/sluice/sluiceTargets\.cmake$'; do
  grep -q "$pat" "$work/files.txt" || fail "nothing matches $pat in the package"
done
if grep -q 'sluice-build-paths' "$work/files.txt"; then fail "sluice-build-paths is packaged"; fi

root=$work/root
dpkg -x "$deb" "$root"
# Depends: the package of each library the command and the kit link (their
# NEEDED entries), where the loader finds it here (ldd: this machine's
# architecture, not a multilib one)
libdir=$(dirname "$(ls "$root"/usr/lib/libsluice.so "$root"/usr/lib/*/libsluice.so 2>/dev/null | head -1)")
[ -d "$libdir" ] || fail "no libsluice.so in the package"
bins="$root/usr/bin/sluice $(ls "$libdir"/libsluice-kit.so.* | tail -1)"
# shellcheck disable=SC2086 # the two paths are words
needed=$(for b in $bins; do
  paths=$(LD_LIBRARY_PATH=$libdir ldd "$b")
  LC_ALL=C readelf -d "$b" | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p' | while read -r so; do
    echo "$paths" | awk -v so="$so" '$1 == so && $2 == "=>" { print so, $3 }'
  done
done | sort -u)
[ -n "$needed" ] || fail "ldd found no libraries the sluice command needs"
while read -r so path; do
  case "$so" in libsluice*) continue ;; esac
  pkg=$(dpkg -S "$path" 2>/dev/null || dpkg -S "$(readlink -f "$path")" 2>/dev/null) ||
    fail "no package owns $path ($so)"
  pkg=${pkg%%:*}
  echo "$depends" | tr ',' '\n' | sed 's/^ *//; s/[ :(].*//' | grep -qx "$pkg" ||
    fail "Depends lacks $pkg, the package of $so"
done <<EOF
$needed
EOF
echo "deb: Depends covers the $(echo "$needed" | grep -vc '^libsluice') libraries the command and the kit load"
cmake -S "$src/tests/consumer" -B "$work/consumer" -DCMAKE_PREFIX_PATH="$root/usr" \
  > "$work/consumer.log" 2>&1 && cmake --build "$work/consumer" >> "$work/consumer.log" 2>&1 ||
  { tail -20 "$work/consumer.log"; fail "the consumer does not build against the package"; }
for exe in consumer consumer_static kit_consumer kit_consumer_static; do
  LD_LIBRARY_PATH=$libdir "$work/consumer/$exe" > "$work/$exe.out" 2>&1 ||
    { cat "$work/$exe.out"; fail "$exe failed"; }
done
flags=$(PKG_CONFIG_PATH=$libdir/pkgconfig pkg-config --cflags --libs sluice)
case "$flags" in *"$root"*) ;; *) fail "pkg-config sluice does not point into the unpacked root: $flags" ;; esac
# shellcheck disable=SC2086 # the flags are words
cc -std=c11 "$src/tests/consumer/consumer.c" $flags -o "$work/pc_consumer" &&
  LD_LIBRARY_PATH=$libdir "$work/pc_consumer" > /dev/null ||
  fail "a program built with pkg-config sluice from the package failed"
echo "deb: the consumers build against the unpacked package and run"

"$root/usr/bin/sluice" conform --suite think > "$work/conform.log" 2>&1 ||
  { tail -20 "$work/conform.log"; fail "sluice conform --suite think failed from the package"; }
last=$(tail -1 "$work/conform.log")
echo "$last" | grep -Eq '^[1-9][0-9]* passed, 0 failed' || fail "unexpected result: $last"
echo "deb: the unpacked sluice conform --suite think: $last"
