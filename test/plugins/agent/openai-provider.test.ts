import { afterAll, beforeAll } from 'vitest';
import { OpenAiCompatibleProvider } from '../../../plugins/agent/openai-provider.js';
import { llmProviderConformance } from './llm-provider-conformance.js';
import { startProviderServer, type ModelListServer } from './provider-server.js';

// The OpenAI-compatible client against a local server speaking the protocol, through a plain fetch
// adapter shaped like ctx.outbound's answer (the plugin's own tests go through ctx.outbound).
let server: ModelListServer;
beforeAll(async () => {
  server = await startProviderServer();
});
afterAll(() => server.close());

llmProviderConformance('openai-compatible', () => ({
  provider: new OpenAiCompatibleProvider('openai-compatible', async (path, init) => {
    const signals = [init.signal, init.timeoutMs ? AbortSignal.timeout(init.timeoutMs) : undefined].filter((s): s is AbortSignal => s !== undefined);
    const res = await fetch(`${server.baseUrl}${path}`, {
      method: init.method,
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(init.body),
      signal: AbortSignal.any(signals),
    });
    return {
      status: res.status,
      headers: res.headers,
      url: res.url,
      redirects: [],
      bytes: async () => new Uint8Array(await res.arrayBuffer()),
      text: () => res.text(),
      json: () => res.json(),
      stream: () => res.body as unknown as AsyncIterable<Uint8Array>,
      discard: async () => void (await res.body?.cancel()),
    };
  }),
  script: (model, answers) => server.scripts.set(model, answers),
}));
