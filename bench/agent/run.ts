/**
 * Agent gateway benchmarks against a local OpenAI-compatible provider (bench/agent/provider.ts, its
 * own process):
 *   npm run bench:agent             (2,000 calls per latency series, 100,000 cache entries, 20,000 events)
 *   npm run bench:agent -- --quick  (300 calls, 10,000 entries, 3,000 events)
 * 1. Per-call latency p50/p99: the provider called directly (the peer), the gateway with the cache
 *    off (overhead = the difference), and the gateway answering from the exact cache.
 * 2. Semantic-cache lookups among N entries: a reworded prompt found by its embedding, through the API.
 * 3. Events/s through the SSE feed: a reader catching up over N stored events, and live behind a producer.
 * Each series is checked before it is timed. Prints one JSON line per measurement.
 */
import 'reflect-metadata';
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { App } from '../../runtime/app.js';
import { createLogger } from '../../runtime/logger.js';
import { resolveManifest } from '../../runtime/manifest.js';
import { cacheKeyOf } from '../../plugins/agent/gateway.js';

const quick = process.argv.includes('--quick');
const calls = quick ? 300 : 2000;
const cacheEntries = quick ? 10_000 : 100_000;
const eventCount = quick ? 3000 : 20_000;
const here = path.dirname(fileURLToPath(import.meta.url));

function pct(samples: number[], p: number): number {
  const s = [...samples].sort((a, b) => a - b);
  return Math.round(s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))]! * 1000) / 1000;
}

async function startProvider(): Promise<{ child: ChildProcess; baseUrl: string }> {
  const child = spawn(process.execPath, [path.join(here, 'provider.js')], { stdio: ['ignore', 'ignore', 'pipe'] });
  const port = await new Promise<number>((resolve, reject) => {
    let buffered = '';
    child.stderr!.on('data', (c: Buffer) => {
      buffered += c.toString();
      const m = buffered.match(/\{"port":(\d+)\}/);
      if (m) resolve(Number(m[1]));
    });
    child.on('exit', (code) => reject(new Error(`provider exited with ${code}: ${buffered}`)));
  });
  return { child, baseUrl: `http://127.0.0.1:${port}/v1` };
}

const post = async (url: string, body: unknown) => {
  const res = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
  const json = (await res.json()) as any;
  if (res.status >= 300) throw new Error(`${url}: ${res.status} ${JSON.stringify(json)}`);
  return json;
};

async function series(label: string, n: number, one: (i: number) => Promise<void>): Promise<{ p50: number; p99: number }> {
  for (let i = 0; i < Math.min(50, n); i++) await one(-1 - i); // warm-up
  const samples: number[] = [];
  for (let i = 0; i < n; i++) {
    const t0 = performance.now();
    await one(i);
    samples.push(performance.now() - t0);
  }
  const out = { p50: pct(samples, 50), p99: pct(samples, 99) };
  console.log(JSON.stringify({ bench: 'agent', series: label, calls: n, p50Ms: out.p50, p99Ms: out.p99 }));
  return out;
}

async function main(): Promise<void> {
  const provider = await startProvider();
  const dataDir = mkdtempSync(path.join(tmpdir(), 'tessera-bench-agent-'));
  const manifest = resolveManifest(
    {
      name: 'bench-agent',
      listeners: [{ name: 'agent', port: 0, plugins: ['agent', 'search'] }],
      plugins: { search: {}, graph: {}, agent: { options: { baseUrl: provider.baseUrl, cache: { similarityThreshold: 0.8 } } } },
      events: { maxEvents: 1_000_000 },
    },
    { file: '(bench)', dir: here, dataDir },
  );
  const app = await App.create(manifest, { logger: createLogger({ level: 'warn' }) });
  await app.start();
  const base = app.url('agent');
  const chat = (content: string, cache: boolean) => post(`${base}/api/v1/chat/completions`, { model: 'tier:5', messages: [{ role: 'user', content }], cache });
  try {
    // 1. Per-call latency.
    const direct = (i: number) =>
      post(`${provider.baseUrl}/chat/completions`, { model: 'openai/o4-mini', messages: [{ role: 'user', content: `direct ${i}` }] });
    const check = await direct(0);
    if (check.choices[0].message.content !== 'ok: 8') throw new Error('provider check failed');
    const gwCheck = await chat('check the gateway', false);
    if (gwCheck.tessera.cache !== 'off' || gwCheck.model !== 'google/gemini-2.5-flash') throw new Error(`gateway check failed: ${JSON.stringify(gwCheck)}`);
    const floor = await series('runtime-floor (GET /api/v1/tokens/budget)', calls, async () => {
      const res = await fetch(`${base}/api/v1/tokens/budget`);
      if (res.status !== 200) throw new Error(`budget answered ${res.status}`);
      await res.arrayBuffer();
    });
    const d = await series('provider-direct', calls, async (i) => void (await direct(i)));
    const g = await series('gateway-cache-off', calls, async (i) => void (await chat(`uncached question number ${i}`, false)));
    await chat('the one cached question', true);
    const hit = await chat('the one cached question', true);
    if (hit.tessera.cache !== 'exact') throw new Error('exact cache check failed');
    const c = await series('gateway-cache-hit', calls, async () => {
      const r = await chat('the one cached question', true);
      if (r.tessera.cache !== 'exact') throw new Error('expected an exact hit');
    });
    console.log(
      JSON.stringify({
        bench: 'agent',
        summary: 'gateway-overhead',
        overheadP50Ms: Math.round((g.p50 - d.p50) * 1000) / 1000,
        overheadP99Ms: Math.round((g.p99 - d.p99) * 1000) / 1000,
        gatewayVsFloorP50: Math.round((g.p50 / floor.p50) * 100) / 100,
        cacheHitVsFloorP50: Math.round((c.p50 / floor.p50) * 100) / 100,
        cacheHitVsProviderP50: Math.round((c.p50 / d.p50) * 100) / 100,
      }),
    );

    // 2. Semantic lookups among N entries of the same tier and parameters.
    const real = 'Why does parse_date in utils/dates.py fail on leap years';
    await chat(real, true);
    const key = cacheKeyOf(5, { model: 'tier:5', messages: [{ role: 'user', content: real }], max_tokens: 4096 });
    const t0 = performance.now();
    for (let i = 0; i < cacheEntries; i += 5000) {
      const docs = Array.from({ length: Math.min(5000, cacheEntries - i) }, (_, k) => ({
        id: `filler-${i + k}`,
        prompt: `user: how do i fix bug ${i + k} in module m${(i + k) % 977} when function f${(i + k) % 131} returns ${(i + k) % 7} items`,
        paramsKey: key.paramsKey,
        tier: '5',
        modelId: 'filler',
      }));
      await post(`${base}/v1/indexes/agent-semantic-cache/documents`, { documents: docs });
    }
    const loadMs = performance.now() - t0;
    const reworded = 'Why does function parse_date in utils/dates.py fail on a leap year';
    const probe = await chat(reworded, true);
    if (probe.tessera.cache !== 'semantic') throw new Error(`semantic check failed: ${JSON.stringify(probe.tessera)}`);
    const s = await series(`semantic-hit-among-${cacheEntries}`, quick ? 100 : 500, async () => {
      const r = await chat(reworded, true);
      if (r.tessera.cache !== 'semantic') throw new Error('expected a semantic hit');
    });
    console.log(
      JSON.stringify({
        bench: 'agent',
        summary: 'semantic-cache',
        entries: cacheEntries + 1,
        loadSeconds: Math.round(loadMs) / 1000,
        p50Ms: s.p50,
        p99Ms: s.p99,
      }),
    );

    // 3. Events through the SSE feed.
    let after = 0;
    for (;;) {
      const page = (await (await fetch(`${base}/api/v1/telemetry/events?after=${after}&limit=1000`)).json()) as { next: number; more: boolean };
      after = page.next;
      if (!page.more) break;
    }
    const produce = async (n: number) => {
      for (let i = 0; i < n; i += 16)
        await Promise.all(
          Array.from({ length: Math.min(16, n - i) }, (_, k) => post(`${base}/api/v1/tokens/budget`, { maxOutputTokens: 1000 + ((i + k) % 3000) })),
        );
    };
    const read = async (after: number, n: number) => {
      const res = await fetch(`${base}/api/v1/telemetry/events?kind=budget.changed&after=${after}`, { headers: { accept: 'text/event-stream' } });
      const reader = res.body!.getReader();
      let seen = 0;
      let lastId = after;
      let buf = '';
      const dec = new TextDecoder();
      while (seen < n) {
        const { value, done } = await reader.read();
        if (done) break;
        buf += dec.decode(value, { stream: true });
        let at: number;
        while ((at = buf.indexOf('\n\n')) >= 0) {
          const block = buf.slice(0, at);
          if (block.includes('\nevent: budget.changed')) {
            seen++;
            lastId = Number(/^id: (\d+)$/m.exec(block)![1]);
          }
          buf = buf.slice(at + 2);
        }
      }
      await reader.cancel();
      return { seen, lastId };
    };
    const tp = performance.now();
    await produce(eventCount);
    const produceS = (performance.now() - tp) / 1000;
    const tc = performance.now();
    const caught = await read(after, eventCount);
    const catchUpS = (performance.now() - tc) / 1000;
    if (caught.seen !== eventCount) throw new Error(`SSE catch-up saw ${caught.seen} of ${eventCount}`);
    const tl = performance.now();
    const [live] = await Promise.all([read(caught.lastId, eventCount), produce(eventCount)]);
    const liveS = (performance.now() - tl) / 1000;
    const liveSeen = live.seen;
    if (liveSeen !== eventCount) throw new Error(`SSE live saw ${liveSeen} of ${eventCount}`);
    console.log(
      JSON.stringify({
        bench: 'agent',
        summary: 'sse-events',
        events: eventCount,
        appendPerSecondOverHttp: Math.round(eventCount / produceS),
        catchUpEventsPerSecond: Math.round(eventCount / catchUpS),
        liveEventsPerSecond: Math.round(eventCount / liveS),
      }),
    );
  } finally {
    await app.stop();
    provider.child.kill();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

await main();
