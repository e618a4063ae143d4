#!/usr/bin/env bash
# claude-code-router's server (@musistudio/llms 1.0.53) checked by
# `sluice gate`: an Anthropic /v1/messages client, an OpenAI chat upstream.
#   ccr-think  provider "think" (its extrathinktag transformer), expected to
#              move <think> blocks into thinking: the think-tags capture in
#              every delta cut, network cut and fault
#   ccr-plain  provider "plain" (no transformer): the other captures of the
#              OpenAI chat endpoint and the SSE framings, translated
# The model is "provider,model" (--model-prefix). Accepted differences:
# known.txt.
#
# usage: run.sh SLUICE OUTDIR   (the CTest gate_gw_claude-code-router; README.md has its times)
. "$(dirname "$0")/../common.sh"
MW=(--url "http://127.0.0.1:{port}" --middleware "node $here/server.cjs {port}" --deadline 150
  --client anthropic)

gate ccr-think "${MW[@]}" --model-prefix "think," --expect think --resplit all --rechunk all \
  --faults cut,reset,error $(caps written-openai-think-tags.sse)
gate ccr-plain "${MW[@]}" --model-prefix "plain," --resplit whole,codepoint,random \
  --rechunk bytes,random --faults cut,reset,error,status:500 --suite sse $(caps $OPENAI_CHAT)
# The lost trailing whitespace: a whitespace-only last delta ("\n") held and
# never flushed, shown with two deltas.
expect "written-openai-think-tags.sse, deltas \([0-9]+ of [0-9]+ variants\) \[known\]"
expect "text of choice 0: 69 bytes expected, 68 got"
expect "smallest delta cut: at:[0-9]+;"
finish
