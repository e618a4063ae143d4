// LangChain JS behind a small OpenAI-chat route (../route.mjs): each request
// streams ChatOpenAI (@langchain/openai, configuration.baseURL pointed at
// $SLUICE_UPSTREAM) and re-emits every AIMessageChunk as an OpenAI chat
// chunk: content as content, additional_kwargs.reasoning_content as
// reasoning_content, tool_call_chunks as tool_calls deltas (their index, id,
// name and argument text as LangChain gives them), the finish reason from
// response_metadata. A thrown error is the route's failure (an error chunk,
// no [DONE]).
//
// maxRetries is 0: LangChain's default (6, with back-off) would turn each
// injected HTTP error status into a minute of retries; the gate's faults
// are the upstream's last word.
//
// usage: node server.mjs PORT [DEADLINE-SECONDS]   (default 300)
import { ChatOpenAI } from '@langchain/openai';
import { chatMessages, routeArgs, serveRoute } from '../route.mjs';

const { port, deadline, upstream } = routeArgs();

async function answer(body, out, signal) {
  const chat = new ChatOpenAI({
    model: body.model,
    apiKey: 'sluice-gate',
    streaming: true,
    maxRetries: 0,
    configuration: { baseURL: `${upstream}/v1` },
  });
  let finish = null;
  const messages = chatMessages(body).map((x) => [x.role, x.content]);
  for await (const chunk of await chat.stream(messages, { signal })) {
    const delta = {};
    if (typeof chunk.content === 'string' && chunk.content) delta.content = chunk.content;
    const reasoning = chunk.additional_kwargs?.reasoning_content;
    if (typeof reasoning === 'string' && reasoning) delta.reasoning_content = reasoning;
    if (chunk.tool_call_chunks?.length) {
      delta.tool_calls = chunk.tool_call_chunks.map((c) => ({
        index: c.index ?? 0,
        ...(c.id ? { id: c.id, type: 'function' } : {}),
        function: { ...(c.name ? { name: c.name } : {}), arguments: c.args ?? '' },
      }));
    }
    if (Object.keys(delta).length) out.delta(delta);
    finish = chunk.response_metadata?.finish_reason ?? finish;
  }
  out.finish(finish);
}

serveRoute({ port, deadline, answer });
