#!/bin/sh
# CTest node_pack: `npm pack` of the package (its prepack builds the .wasm
# from this source tree), the tarball installed into a new project beside
# the pinned ai package, offline (npm's cache has them once
# scripts/install-peers has run), and used there (test/pack/consumer.mjs).
#
#   sh bindings/node/test/pack.sh WORKDIR
set -eu
here=$(cd "$(dirname "$0")/.." && pwd) # bindings/node
work=$1
skip() { echo "$*: skipped"; exit 77; }
# the Node version the package's engines ask for ("node": ">=20")
need=$(sed -n 's/.*"node": *">= *\([0-9]*\).*/\1/p' "$here/package.json")
command -v node >/dev/null 2>&1 || skip "node not found (the Node package needs Node $need or later)"
v=$(node -p process.versions.node 2>/dev/null) || v=unknown
[ "${v%%.*}" -ge "$need" ] 2>/dev/null || skip "node $v found, the Node package needs Node $need or later"
command -v npm >/dev/null 2>&1 || skip "npm not found (Debian's nodejs comes without it: apt-get install npm)"
[ -d "$here/node_modules/ai" ] || skip "the Node package's devDependencies are not installed (scripts/install-peers)"

rm -rf "$work"
mkdir -p "$work/package" "$work/project"
# the package folder as it is in git (no node_modules, no dist), packed
# where it stands would write into the source tree
cp -R "$here/index.mjs" "$here/index.d.ts" "$here/package.json" "$here/src" "$here/wasm" "$work/package/"
[ -f "$here/README.md" ] && cp "$here/README.md" "$work/package/"
cd "$work/package"
SLUICE_SOURCE_DIR=$(cd "$here/../.." && pwd) npm pack --silent --pack-destination "$work" > "$work/pack.out" || {
  rc=$?
  cat "$work/pack.out"
  [ $rc -eq 77 ] && exit 77 # the wasm build's tools are missing
  exit 1
}
tarball=$(tail -n 1 "$work/pack.out")
echo "packed $tarball: $(tar -tzf "$work/$tarball" | tr '\n' ' ')"
tar -tzf "$work/$tarball" | grep -q '^package/dist/sluice.wasm$' || { echo "the tarball has no dist/sluice.wasm"; exit 1; }

# the versions the package's own lockfile pins
pin() { node -e "const l = require('$here/package-lock.json'); console.log(l.packages['node_modules/$1'].version)"; }
ai=$(pin ai)
zod=$(pin zod)
cd "$work/project"
cat > package.json <<EOP
{ "name": "sluice-pack-check", "private": true, "type": "module",
  "dependencies": { "sluice": "file:../$tarball", "ai": "$ai", "zod": "$zod" } }
EOP
# the package's own lockfile, so that npm takes the versions it pins (and
# its cache holds) for the ai package's dependencies too
cp "$here/package-lock.json" .
npm install --offline --no-audit --no-fund --ignore-scripts --loglevel=error
cp "$here/test/pack/consumer.mjs" .
node consumer.mjs
