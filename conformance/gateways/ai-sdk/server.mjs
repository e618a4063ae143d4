// The AI SDK behind a small OpenAI-chat route (../route.mjs): each request
// runs streamText over @ai-sdk/openai-compatible pointed at $SLUICE_UPSTREAM,
// with the model wrapped in extractReasoningMiddleware({ tagName: "think" }),
// and streams its parts back as OpenAI chat chunks: text as content,
// reasoning (the upstream's reasoning_content or reasoning, and what the
// middleware took out of <think> tags) as reasoning_content, tool input as
// tool_calls deltas, the finish reason in OpenAI's words; an `error` part
// is the route's failure (an error chunk, no [DONE]).
//
// No tools are declared: the gate's client sends none. streamText still
// streams a call's input (tool-input-start / -delta), which is what is
// re-emitted; its own check of the call against the (absent) tool set is
// not the client's concern here.
//
// maxRetries is 0: the AI SDK's default (2, after 2 s and 4 s) would add
// six seconds to each injected HTTP error status; the gate's faults are the
// upstream's last word.
//
// usage: node server.mjs PORT [DEADLINE-SECONDS]   (default 300)
import { createOpenAICompatible } from '@ai-sdk/openai-compatible';
import { extractReasoningMiddleware, streamText, wrapLanguageModel } from 'ai';
import { chatMessages, routeArgs, serveRoute } from '../route.mjs';

const { port, deadline, upstream } = routeArgs();

const provider = createOpenAICompatible({
  name: 'upstream',
  baseURL: `${upstream}/v1`,
  apiKey: 'sluice-gate',
});

// The AI SDK's finish reasons in OpenAI's words; "other" is passed on as
// the upstream said it.
const finishes = {
  stop: 'stop',
  length: 'length',
  'content-filter': 'content_filter',
  'tool-calls': 'tool_calls',
};

async function answer(body, out, signal) {
  const model = wrapLanguageModel({
    model: provider.chatModel(body.model),
    middleware: extractReasoningMiddleware({ tagName: 'think' }),
  });
  const result = streamText({
    model,
    messages: chatMessages(body),
    abortSignal: signal,
    maxRetries: 0,
    onError: () => {}, // an error is a part of fullStream, reported below
  });
  const calls = new Map(); // tool-input id -> OpenAI tool_calls index
  for await (const part of result.fullStream) {
    switch (part.type) {
      case 'text-delta':
        if (part.text) out.delta({ content: part.text });
        break;
      case 'reasoning-delta':
        if (part.text) out.delta({ reasoning_content: part.text });
        break;
      case 'tool-input-start':
        calls.set(part.id, calls.size);
        out.delta({
          tool_calls: [{ index: calls.get(part.id), id: part.id, type: 'function', function: { name: part.toolName, arguments: '' } }],
        });
        break;
      case 'tool-input-delta':
        out.delta({ tool_calls: [{ index: calls.get(part.id) ?? 0, function: { arguments: part.delta } }] });
        break;
      case 'error':
        throw part.error;
      case 'finish':
        out.finish(finishes[part.finishReason] ?? part.rawFinishReason ?? part.finishReason);
        break;
      default:
        break;
    }
  }
}

serveRoute({ port, deadline, answer });
