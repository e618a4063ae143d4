#!/bin/sh
# sluice replay on malformed and awkward captures: each stops with the file,
# the line, the byte offset and the reason, and a non-zero exit status; a
# truncated capture is reported as truncated; write errors are errors.
# usage: replay_cli.sh SLUICE SCRATCH_DIR
set -u
sluice=$1
dir=$2
rm -rf "$dir" && mkdir -p "$dir" || exit 1
fails=0

# expect NAME STATUS PATTERN CMD...: the command exits with STATUS and its
# stderr matches PATTERN (grep -E).
expect() {
  name=$1 want=$2 pattern=$3
  shift 3
  "$@" >"$dir/out" 2>"$dir/err"
  got=$?
  if [ "$got" -ne "$want" ] || ! grep -Eq -- "$pattern" "$dir/err"; then
    echo "FAIL $name: status $got (want $want), stderr:" >&2
    cat "$dir/err" >&2
    fails=$((fails + 1))
  else
    echo "ok   $name"
  fi
}

# A .chunks.jsonl whose third line is not JSON: the capture reader stops at
# line 3, at the byte where the JSON goes wrong.
good='{"object":"chat.completion.chunk","choices":[{"index":0,"delta":{"content":"Hi"}}]}'
printf '%s\n%s\n{"choices":[}\n%s' "$good" "$good" "$good" >"$dir/bad.chunks.jsonl"
at=$(( ${#good} * 2 + 2 + 12 ))
expect bad_jsonl_line 1 "bad\\.chunks\\.jsonl: line 3, byte $at: capture_format: " \
  "$sluice" replay "$dir/bad.chunks.jsonl"

# A .chunks.jsonl whose first line is JSON but no provider's chunk: the
# provider filter stops at line 2, at the byte where that line starts (the
# body offset of its event mapped back into the file).
printf '\n{"hello":1}\n%s\n' "$good" >"$dir/odd.chunks.jsonl"
expect odd_jsonl_line 1 "odd\\.chunks\\.jsonl: line 2, byte 1: provider_format: .*no provider" \
  "$sluice" replay "$dir/odd.chunks.jsonl"

# An SSE body whose second event is not JSON: line 3.
printf 'data: %s\n\ndata: not json\n\n' "$good" >"$dir/bad.sse"
at=$(( ${#good} + 8 ))
expect bad_sse_event 1 "bad\\.sse: line 3, byte $at: provider_format: .*not a JSON object" \
  "$sluice" replay "$dir/bad.sse"

# The same error whatever the chunking.
expect bad_sse_bytes 1 "line 3, byte $at: provider_format" \
  "$sluice" replay --rechunk bytes "$dir/bad.sse"
expect bad_sse_random 1 "line 3, byte $at: provider_format" \
  "$sluice" replay --rechunk random:7 "$dir/bad.sse"

expect bad_sse_check 1 "bad\\.sse: line 3, byte $at: provider_format" \
  "$sluice" replay --check "$dir/bad.sse"

# A first chunk from no known provider.
printf 'data: {"hello": 1}\n\n' >"$dir/unknown.sse"
expect unknown_provider 1 "unknown\\.sse: line 1, byte 0: provider_format: .*no provider" \
  "$sluice" replay "$dir/unknown.sse"

# Not a capture at all: no chunk of any provider.
printf 'hello, world\n\nthis is prose\n' >"$dir/prose.txt"
expect not_a_capture 1 "prose\\.txt: no provider chunk in its 28 bytes" "$sluice" replay "$dir/prose.txt"
head -c 3000 /dev/urandom >"$dir/random.bin" 2>/dev/null || dd if=/dev/zero of="$dir/random.bin" bs=1000 count=3 2>/dev/null
expect binary_file 1 "random\\.bin: (no provider chunk|line [0-9]+, byte [0-9]+: provider_format)" "$sluice" replay "$dir/random.bin"

# A stream without [DONE] is truncated, never a clean end (exit 0: the
# replay itself worked).
printf 'data: %s\n\n' "$good" >"$dir/truncated.sse"
expect truncated 0 "TRUNCATED" "$sluice" replay "$dir/truncated.sse"
"$sluice" replay -q --output sse "$dir/truncated.sse" >"$dir/trunc.out" 2>/dev/null
if grep -q 'DONE' "$dir/trunc.out" || ! grep -q 'stream_truncated' "$dir/trunc.out"; then
  echo "FAIL truncated_sse_output: a truncated stream was written with [DONE]" >&2
  fails=$((fails + 1))
else
  echo "ok   truncated_sse_output"
fi

# Files that are not there, a line over the cap, bad options, --check on a
# pipe, and a write error.
expect missing_file 1 "nope\\.sse: No such file" "$sluice" replay "$dir/nope.sse"
expect bad_rechunk 2 "--rechunk: must be" "$sluice" replay --rechunk sideways "$dir/truncated.sse"
expect bad_output 2 "--output: must be" "$sluice" replay --output xml "$dir/truncated.sse"
expect bad_filter 2 "the pipeline: .*not a text filter" "$sluice" replay --filter json "$dir/truncated.sse"
expect bad_pipeline_file 2 "nope\\.json" "$sluice" replay --pipeline "$dir/nope.json" "$dir/truncated.sse"
expect check_needs_file 2 "needs a regular file" sh -c "cat '$dir/truncated.sse' | '$sluice' replay --check -"
expect whole_over_max_chunk 1 "larger than --max-chunk" \
  "$sluice" replay --rechunk whole --max-chunk 10 "$dir/truncated.sse"
if [ -w /dev/full ]; then
  expect write_error 1 "cannot write output" sh -c "'$sluice' replay '$dir/truncated.sse' >/dev/full"
fi

# A pipeline file and flags together.
printf '{"filters": [{"filter": "think"}]}' >"$dir/pipeline.json"
printf 'data: {"choices":[{"index":0,"delta":{"content":"<think>x</think>ok"}}]}\n\ndata: [DONE]\n\n' >"$dir/think.sse"
out=$("$sluice" replay -q --pipeline "$dir/pipeline.json" "$dir/think.sse")
thought=$("$sluice" replay -q --pipeline "$dir/pipeline.json" --channel thought "$dir/think.sse")
if [ "$out" = "ok" ] && [ "$thought" = "x" ]; then echo "ok   pipeline_file"; else
  echo "FAIL pipeline_file: text \"$out\", thought \"$thought\"" >&2
  fails=$((fails + 1))
fi

[ "$fails" -eq 0 ] && echo "replay_cli: all passed"
[ "$fails" -eq 0 ]
