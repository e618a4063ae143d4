#!/bin/sh
# For the bindings' CTests: runs a command when what it needs is there, and
# otherwise exits 77 (CTest's skip) saying what is missing.
#
#   sh bindings/run_if.sh [--command NAME]... [--node MAJOR] [--file PATH WHY]... [--env NAME=VALUE]... -- COMMAND ARGS...
#
# --node MAJOR: node, at version MAJOR or later (the Node package's engines).
while [ $# -gt 0 ]; do
  case $1 in
    --command) command -v "$2" >/dev/null 2>&1 || { echo "$2 not found: skipped"; exit 77; }; shift 2 ;;
    --node)
      command -v node >/dev/null 2>&1 ||
        { echo "node not found (the Node package needs Node $2 or later): skipped"; exit 77; }
      v=$(node -p process.versions.node 2>/dev/null) || v=unknown
      [ "${v%%.*}" -ge "$2" ] 2>/dev/null ||
        { echo "node $v found, the Node package needs Node $2 or later ($(command -v node)): skipped"; exit 77; }
      shift 2 ;;
    --file) [ -e "$2" ] || { echo "$3: skipped"; exit 77; }; shift 3 ;;
    --env) export "${2?}"; shift 2 ;;
    --) shift; break ;;
    *) echo "run_if.sh: unknown argument $1" >&2; exit 2 ;;
  esac
done
exec "$@"
