/**
 * One server per process, so the load generator does not share its event loop:
 *   node dist/bench/http/server.js tessera   (the runtime with the echo plugin, logs at info to stdout)
 *   node dist/bench/http/server.js h3        (a bare h3 app serving the same two routes)
 * Prints {"port": N} once listening.
 */
import 'reflect-metadata';
import { createServer } from 'node:http';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { H3, readBody } from 'h3';
import { toNodeHandler } from 'h3/node';
import { App } from '../../runtime/app.js';
import { healthBody } from '../../runtime/health.js';
import { createLogger } from '../../runtime/logger.js';
import { resolveManifest } from '../../runtime/manifest.js';

const kind = process.argv[2];

let dataDir: string | undefined;

async function startTessera(): Promise<number> {
  dataDir = mkdtempSync(path.join(tmpdir(), 'tessera-bench-http-'));
  const manifest = resolveManifest(
    {
      name: 'bench-http',
      listeners: [{ name: 'main', port: 0, plugins: ['bench-echo'] }],
      plugins: { 'bench-echo': { module: './echo-plugin.js' } },
    },
    { file: '(bench)', dir: path.dirname(fileURLToPath(import.meta.url)), dataDir },
  );
  // Request logs go to stdout, which the bench discards: a real deployment writes them somewhere too.
  const app = await App.create(manifest, { logger: createLogger({ level: process.env.TESSERA_LOG_LEVEL ?? 'info', destination: undefined }) });
  await app.start();
  return app.addresses().main!.port;
}

async function startH3(): Promise<number> {
  const startedAt = Date.now();
  const app = new H3();
  app.get('/health', () => healthBody(startedAt));
  app.post('/echo', async (event) => ({ ok: true, echo: await readBody(event) }));
  const server = createServer(toNodeHandler(app));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return (server.address() as { port: number }).port;
}

const port = kind === 'tessera' ? await startTessera() : kind === 'h3' ? await startH3() : undefined;
if (port === undefined) {
  process.stderr.write('usage: server.js tessera|h3\n');
  process.exit(2);
}
process.stderr.write(`${JSON.stringify({ port })}\n`);
// Exit through process.exit so `node --cpu-prof` writes its profile when the bench stops us.
// The temporary store goes with the process: every bench run starts one.
for (const signal of ['SIGTERM', 'SIGINT'] as const) {
  process.on(signal, () => {
    if (dataDir) rmSync(dataDir, { recursive: true, force: true });
    process.exit(0);
  });
}
