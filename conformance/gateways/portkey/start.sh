#!/bin/sh
# Portkey's AI gateway (@portkey-ai/gateway 1.15.2, its self-contained
# build/start-server.js) on 127.0.0.1:PORT, with preload.cjs (loopback only,
# the Node 20 Headers work-around, a deadline). The upstream is chosen per
# request by the client's headers: x-portkey-provider and
# x-portkey-custom-host (run.sh gives them to the gate with -H).
#
# usage: start.sh PORT
here=$(cd "$(dirname "$0")" && pwd)
exec node -r "$here/preload.cjs" \
  "$here/../node_modules/@portkey-ai/gateway/build/start-server.js" --port="$1" --headless
