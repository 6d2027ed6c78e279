/**
 * A minimal OpenAI-compatible chat-completions server for the agent bench, in its own process so it
 * does not share the gateway's event loop. Answers at once; prints {"port":N} on stderr.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';

const server = createServer((req, res) => {
  let raw = '';
  req.on('data', (c: Buffer) => (raw += c.toString('utf8')));
  req.on('end', () => {
    if (req.url?.endsWith('/models')) {
      res.writeHead(200, { 'content-type': 'application/json' }).end('{"data":[]}');
      return;
    }
    const body = JSON.parse(raw) as { model: string; messages: Array<{ content: string }> };
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(
      JSON.stringify({
        id: 'chatcmpl-bench',
        object: 'chat.completion',
        created: 0,
        model: body.model,
        choices: [{ index: 0, message: { role: 'assistant', content: `ok: ${body.messages.at(-1)?.content.length}` }, finish_reason: 'stop' }],
        usage: { prompt_tokens: 20, completion_tokens: 5, total_tokens: 25 },
      }),
    );
  });
});
server.keepAliveTimeout = 60_000;
server.listen(0, '127.0.0.1', () => process.stderr.write(`${JSON.stringify({ port: (server.address() as AddressInfo).port })}\n`));
