#!/bin/sh
# function_size.sh SRC [MAX]: no function of the sluice command (tools/*.c,
# tools/common/*.c) is MAX lines or longer (default 80), counted from the
# first line of its signature to its closing brace (universal-ctags' line
# and end fields). Skipped (77) without universal-ctags.
set -u
src=$1
max=${2:-80}
ctags --version 2>/dev/null | grep -q "Universal Ctags" ||
  { echo "universal-ctags not found: skipped"; exit 77; }
long=$(ctags --fields=+ne --c-kinds=f -o - "$src"/tools/*.c "$src"/tools/common/*.c |
  awk -F'\t' -v max="$max" '{ l = e = 0
    for (i = 4; i <= NF; i++) { if ($i ~ /^line:/) l = substr($i, 6); if ($i ~ /^end:/) e = substr($i, 5) }
    if (e - l + 1 >= max) printf "%5d %s:%d %s\n", e - l + 1, $2, l, $1 }' | sort -rn)
if [ -n "$long" ]; then
  echo "functions of $max lines or more (split them into static helpers):"
  echo "$long"
  exit 1
fi
echo "function_size: every function in tools/ is under $max lines"
