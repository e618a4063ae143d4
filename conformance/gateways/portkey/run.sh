#!/usr/bin/env bash
# Portkey's gateway checked by `sluice gate`, in three routes, each the
# OpenAI chat API to its client: OpenAI upstream (the captures of the OpenAI
# chat endpoint and the SSE framings), Anthropic upstream and Gemini
# upstream (their captures, translated). Strict OpenAI compliance is
# Portkey's default and is kept. Accepted differences: known.txt.
#
# usage: run.sh SLUICE OUTDIR   (the CTest gate_gw_portkey; README.md has its times)
. "$(dirname "$0")/../common.sh"
MW=(--url "http://127.0.0.1:{port}" --middleware "$here/start.sh {port}" --deadline 150)
ALL=(--resplit whole,codepoint,random --rechunk bytes,random)

gate portkey-openai "${MW[@]}" "${ALL[@]}" --faults cut,reset,error,status:500,status:429 \
  -H "x-portkey-provider: openai" -H "x-portkey-custom-host: {upstream}/v1" \
  --suite sse $(caps $OPENAI_CHAT written-openai-think-tags.sse)
gate portkey-anthropic "${MW[@]}" "${ALL[@]}" --faults cut,reset,error,status:500 \
  -H "x-portkey-provider: anthropic" -H "x-portkey-custom-host: {upstream}/v1" \
  $(caps anthropic-messages-basic.sse anthropic-messages-tool-use.sse \
    anthropic-thinking-signature.chunks.jsonl)
gate portkey-gemini "${MW[@]}" "${ALL[@]}" --faults cut,reset,error,status:500 \
  -H "x-portkey-provider: google" -H "x-portkey-custom-host: {upstream}/v1beta" \
  $(caps gemini-api-gemma4-thought-then-text.chunks.jsonl \
    gemini-vertex-thought-toolcall.chunks.jsonl written-gemini-alt-sse-crlf.sse \
    written-gemini-parallel-calls.sse)
expect "written-gemini-parallel-calls.sse, recorded \(1 of 1 variants\) \[known\]"
expect "parallel calls collapsed into one"
finish
