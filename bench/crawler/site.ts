/**
 * A synthetic site for the crawler bench, in its own process so it does not share the crawler's
 * event loop: `/p/<n>` for n in [0, pages), each ~2 KB of text linking to its children 8n+1..8n+8
 * (a tree, so every page is reachable from /p/0) and back to its parent and /p/0.
 *   node dist/bench/crawler/site.js <pages>   -> prints {"port": N} on stderr
 */
import { createServer } from 'node:http';

const pages = Number(process.argv[2] ?? 10_000);
const words = ['harbour', 'lighthouse', 'ferry', 'tide', 'jetty', 'buoy', 'kelp', 'gull', 'anchor', 'mooring', 'pier', 'sail'];

function page(n: number): string {
  const text: string[] = [];
  for (let i = 0; i < 300; i++) text.push(words[(n * 7 + i * 13) % words.length]!);
  const links = n === 0 ? [0] : [0, Math.floor((n - 1) / 8)];
  for (let c = 8 * n + 1; c <= 8 * n + 8 && c < pages; c++) links.push(c);
  const anchors = links.map((l) => `<a href="/p/${l}">page ${l}</a>`).join(' ');
  return `<!doctype html><html lang="en"><head><title>Page ${n}</title><meta name="description" content="Synthetic page ${n}"></head><body><nav>${anchors}</nav><main><h1>Page ${n}</h1><p>${text.join(' ')}</p></main></body></html>`;
}

const server = createServer((req, res) => {
  const match = /^\/p\/(\d+)$/.exec(req.url ?? '');
  const n = match ? Number(match[1]) : -1;
  if (n < 0 || n >= pages) {
    res.writeHead(404, { 'content-type': 'text/plain' }).end('not found');
    return;
  }
  res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(page(n));
});
server.listen(0, '127.0.0.1', () => {
  process.stderr.write(`${JSON.stringify({ port: (server.address() as { port: number }).port })}\n`);
});
process.on('SIGTERM', () => server.close(() => process.exit(0)));
