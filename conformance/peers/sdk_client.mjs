// sdk_client.mjs FAMILY BASE_URL [TIMEOUT_MS]: streams one answer from
// `sluice serve` through the provider's own SDK, pointed at it by its base
// URL, and prints what the client yielded as one JSON line:
//   {"text": ..., "reasoning": ..., "tool_args": ..., "error": null | {"class", "status", "message"}}
// FAMILY: openai-chat, openai-responses, anthropic. No retries, so a fault
// surfaces as the SDK reports it.
import OpenAI from 'openai';
import Anthropic from '@anthropic-ai/sdk';

const [family, base, timeoutArg] = process.argv.slice(2);
const timeout = Number(timeoutArg || 20000);
const out = { text: '', reasoning: '', tool_args: '', error: null };

async function run() {
  if (family === 'openai-chat') {
    const client = new OpenAI({ baseURL: base + '/v1', apiKey: 'sk-test', maxRetries: 0, timeout });
    const stream = await client.chat.completions.create({
      model: 'test', messages: [{ role: 'user', content: 'hi' }], stream: true,
    });
    for await (const chunk of stream) {
      const d = chunk.choices?.[0]?.delta;
      if (!d || chunk.choices[0].index !== 0) continue;
      if (typeof d.content === 'string') out.text += d.content;
      if (typeof d.reasoning_content === 'string') out.reasoning += d.reasoning_content;
      if (typeof d.reasoning === 'string') out.reasoning += d.reasoning;
      for (const t of d.tool_calls || []) out.tool_args += t.function?.arguments || '';
    }
  } else if (family === 'openai-responses') {
    const client = new OpenAI({ baseURL: base + '/v1', apiKey: 'sk-test', maxRetries: 0, timeout });
    const stream = await client.responses.create({ model: 'test', input: 'hi', stream: true });
    for await (const ev of stream) {
      if (ev.type === 'response.output_text.delta') out.text += ev.delta;
      if (ev.type === 'response.reasoning_summary_text.delta') out.reasoning += ev.delta;
      if (ev.type === 'response.reasoning_text.delta') out.reasoning += ev.delta;
      if (ev.type === 'response.function_call_arguments.delta') out.tool_args += ev.delta;
    }
  } else if (family === 'anthropic') {
    const client = new Anthropic({ baseURL: base, apiKey: 'sk-ant-test', maxRetries: 0, timeout });
    const stream = await client.messages.create({
      model: 'test', max_tokens: 100, messages: [{ role: 'user', content: 'hi' }], stream: true,
    });
    for await (const ev of stream) {
      if (ev.type !== 'content_block_delta') continue;
      if (ev.delta.type === 'text_delta') out.text += ev.delta.text;
      if (ev.delta.type === 'thinking_delta') out.reasoning += ev.delta.thinking;
      if (ev.delta.type === 'input_json_delta') out.tool_args += ev.delta.partial_json;
    }
  } else {
    throw new Error('unknown family ' + family);
  }
}

try {
  await run();
} catch (e) {
  out.error = { class: e.constructor?.name || 'Error', status: e.status ?? null, message: String(e.message || e) };
}
process.stdout.write(JSON.stringify(out) + '\n');
