#!/usr/bin/env bash
# LangChain JS (@langchain/openai 1.5.8, @langchain/core 1.4.0) checked by
# `sluice gate` behind server.mjs: ChatOpenAI streaming from the OpenAI chat
# upstream, each AIMessageChunk re-emitted as an OpenAI chat chunk. Expected:
# the stream passed through, in every delta cut (16 single cuts a case at
# most), network cut and fault, over the captures of the OpenAI chat
# endpoint and the SSE framings. Accepted differences: known.txt.
#
# usage: run.sh SLUICE OUTDIR   (the CTest gate_gw_langchain; README.md has its times)
. "$(dirname "$0")/../common.sh"
gate langchain --url "http://127.0.0.1:{port}" --middleware "node $here/server.mjs {port}" \
  --deadline 150 --resplit all --max-single 16 --rechunk bytes,random \
  --faults cut,reset,error,status:500 --suite sse \
  $(caps $OPENAI_CHAT written-openai-think-tags.sse)
finish
