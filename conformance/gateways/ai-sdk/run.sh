#!/usr/bin/env bash
# The AI SDK (ai 6.0.324, @ai-sdk/openai-compatible 2.0.91) checked by
# `sluice gate` behind server.mjs: streamText over the OpenAI chat upstream
# with extractReasoningMiddleware({ tagName: "think" }), streamed back as
# OpenAI chat chunks. Expected: <think> blocks moved into the reasoning
# (--expect think), in every delta cut (16 single cuts a case at most),
# network cut and fault, over the captures of the OpenAI chat endpoint and
# the SSE framings. Accepted differences: known.txt.
#
# usage: run.sh SLUICE OUTDIR   (the CTest gate_gw_ai-sdk; README.md has its times)
. "$(dirname "$0")/../common.sh"
gate ai-sdk --url "http://127.0.0.1:{port}" --middleware "node $here/server.mjs {port}" \
  --deadline 150 --expect think --resplit all --max-single 16 --rechunk bytes,random \
  --faults cut,reset,error,status:500 --suite sse \
  $(caps $OPENAI_CHAT written-openai-think-tags.sse)
finish
