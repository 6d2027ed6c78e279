import { spawn, type ChildProcess } from 'node:child_process';
import { request as httpRequest } from 'node:http';
import fc from 'fast-check';
import { createTestApp, type TestApp } from '../helpers/app.js';

/**
 * The search engine's HTTP API under generated input: documents (deep and wide JSON, extreme
 * numbers, unicode edge cases, odd ids), queries, filters, sorts, vectors, ids and index names with
 * dot segments and encoded slashes, bulk lines. Shared by the fixed-seed run in `npm test`
 * (test/fuzz/api-invariants.test.ts) and the longer run in bench/fuzz.ts.
 *
 * Invariants:
 * 1. No answer is a 500.
 * 2. `/health` is answered within a second throughout (probed from another process, every 100 ms).
 * 3. After a restart on the same data directory, every acknowledged document is readable by id and
 *    found by search, with its last acknowledged content.
 * 4. A document that was never acknowledged is not half-present: neither readable nor searchable.
 */

export const INDEX = 'fuzz';
const DIMS = 4;

export interface RawAnswer {
  status: number;
  body: any;
  text: string;
}

/** A raw HTTP exchange: the path goes out exactly as given (fetch() would normalise `..`). */
export function raw(base: string, method: string, path: string, body?: string, contentType = 'application/json'): Promise<RawAnswer> {
  return new Promise((resolve, reject) => {
    const headers: Record<string, string> = {};
    if (body !== undefined) {
      headers['content-type'] = contentType;
      headers['content-length'] = String(Buffer.byteLength(body));
    }
    const req = httpRequest(base, { method, path, headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => {
        const text = Buffer.concat(chunks).toString('utf8');
        let parsed: unknown;
        try {
          parsed = text ? JSON.parse(text) : undefined;
        } catch {
          parsed = undefined;
        }
        resolve({ status: res.statusCode ?? 0, body: parsed, text });
      });
    });
    req.on('error', reject);
    req.end(body);
  });
}

// ---- generators ----

const oddStrings = [
  '.',
  '..',
  '...',
  '/',
  'a/b',
  '%2F',
  '%',
  '%zz',
  '?',
  '#',
  ' ',
  '\t',
  '\u0000',
  '\uFEFF',
  '\u202E',
  '\uD800',
  '😀',
  'e\u0301',
  'İ',
  'ß',
  '__proto__',
  'constructor',
  'toString',
  'hasOwnProperty',
];
const idArb = fc.oneof(
  { weight: 4, arbitrary: fc.string({ minLength: 1, maxLength: 12 }) },
  { weight: 2, arbitrary: fc.constantFrom(...oddStrings) },
  { weight: 1, arbitrary: fc.string({ unit: 'binary', minLength: 1, maxLength: 8 }) },
  { weight: 1, arbitrary: fc.integer() },
  { weight: 1, arbitrary: fc.constantFrom('', 'x'.repeat(600), 1e21, -0, 3.5) },
);

const extremeNumbers = fc.oneof(
  fc.double({ noNaN: true, noDefaultInfinity: true }),
  fc.constantFrom(1e39, -1e39, 3e38, -3e38, 1e-45, 5e-324, Number.MAX_VALUE, -Number.MAX_VALUE, Number.MAX_SAFE_INTEGER + 2, 0, -0),
);

const textArb = fc.oneof(
  { weight: 5, arbitrary: fc.lorem({ maxCount: 12 }) },
  { weight: 2, arbitrary: fc.string({ unit: 'grapheme', maxLength: 40 }) },
  { weight: 1, arbitrary: fc.constantFrom(...oddStrings) },
  { weight: 1, arbitrary: fc.integer({ min: 1, max: 200_000 }).map((n) => 'word '.repeat(n / 5)) },
);

/** JSON nested `depth` levels, written as text (deeper than any recursive serialiser handles). */
function nestedJson(depth: number, leaf = '1'): string {
  return '{"a":'.repeat(depth) + leaf + '}'.repeat(depth);
}

export interface GenDoc {
  /** The document as JSON text (a deep one cannot go through JSON.stringify). */
  json: string;
  id: unknown;
  title: unknown;
}

const docArb: fc.Arbitrary<GenDoc> = fc
  .record(
    {
      id: idArb,
      title: textArb,
      tags: fc.oneof(fc.array(fc.constantFrom('a', 'b', 'c', '😀', ''), { maxLength: 5 }), fc.constantFrom('a', 7, null, true)),
      year: fc.oneof(extremeNumbers, fc.constantFrom('1999', null, true)),
      _vector: fc.oneof(fc.array(extremeNumbers, { minLength: DIMS, maxLength: DIMS }), fc.array(extremeNumbers, { maxLength: 6 }), fc.constantFrom(null, 'v')),
      extra: fc.jsonValue({ maxDepth: 3 }),
      wide: fc.dictionary(fc.string({ maxLength: 6 }), fc.jsonValue({ maxDepth: 1 }), { maxKeys: 40 }),
    },
    { requiredKeys: ['id', 'title'] },
  )
  .chain((doc) =>
    fc.oneof({ weight: 8, arbitrary: fc.constant(undefined) }, { weight: 1, arbitrary: fc.integer({ min: 30, max: 20_000 }) }).map((depth) => {
      const base = JSON.stringify(doc);
      const json = depth === undefined ? base : `${base.slice(0, -1)},"deep":${nestedJson(depth)}}`;
      return { json, id: doc.id, title: doc.title };
    }),
  );

const filterArb = fc.oneof(
  fc.jsonValue({ maxDepth: 3 }),
  fc.record({ in: fc.record({ id: fc.array(idArb, { maxLength: 4 }) }) }),
  fc.record({ eq: fc.record({ tags: fc.oneof(fc.string(), fc.integer(), fc.boolean()) }) }),
  fc.record({ range: fc.record({ year: fc.record({ gte: extremeNumbers, lt: extremeNumbers }, { requiredKeys: [] }) }) }),
  fc.integer({ min: 1, max: 60 }).map((depth) => JSON.parse('{"not":'.repeat(depth) + '{"exists":"tags"}' + '}'.repeat(depth)) as unknown),
);

const searchArb = fc.record(
  {
    q: fc.oneof(textArb, fc.constantFrom('"unclosed', '((((', 'a AND', 'NOT', '-', '*', '"a b"~3', 'title:x', '\u0000', '')),
    mode: fc.constantFrom('keyword', 'semantic', 'hybrid', 'geo', 'bogus'),
    size: fc.oneof(fc.integer({ min: -5, max: 2000 }), fc.constantFrom(0, 1, 10, 1e9, 1.5)),
    from: fc.integer({ min: -5, max: 100_000 }),
    sort: fc.array(fc.oneof(fc.constantFrom('title:desc', 'year:asc', 'tags:desc', 'year:up', 'id:asc', '_score:desc', 'nope'), fc.string()), { maxLength: 3 }),
    filter: filterArb,
    vector: fc.oneof(fc.array(extremeNumbers, { minLength: DIMS, maxLength: DIMS }), fc.array(extremeNumbers, { maxLength: 6 })),
    highlight: fc.boolean(),
    geo: fc.record(
      { lat: extremeNumbers, lon: extremeNumbers, radius: fc.oneof(fc.constantFrom('1e9km', '10km', '-1m', 'far'), extremeNumbers) },
      { requiredKeys: [] },
    ),
    extraKey: fc.jsonValue({ maxDepth: 1 }),
  },
  { requiredKeys: [] },
);

export type Command =
  | { kind: 'upsert'; docs: GenDoc[]; ndjson: boolean }
  | { kind: 'get'; id: unknown }
  | { kind: 'delete'; id: unknown }
  | { kind: 'search'; body: unknown }
  | { kind: 'bulk'; lines: string[] }
  | { kind: 'indexPath'; name: string; method: 'GET' | 'DELETE' | 'PATCH' };

export const commandArb: fc.Arbitrary<Command> = fc.oneof(
  { weight: 5, arbitrary: fc.record({ kind: fc.constant('upsert' as const), docs: fc.array(docArb, { minLength: 1, maxLength: 6 }), ndjson: fc.boolean() }) },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('get' as const), id: idArb }) },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('delete' as const), id: idArb }) },
  { weight: 4, arbitrary: fc.record({ kind: fc.constant('search' as const), body: searchArb }) },
  {
    weight: 2,
    arbitrary: fc.record({
      kind: fc.constant('bulk' as const),
      lines: fc.array(
        fc.oneof(
          docArb.map((d) => d.json),
          fc.constantFrom('{', '', '[]', 'null', '{"index":{}}', '\uD800'),
          fc.string(),
        ),
        { minLength: 1, maxLength: 8 },
      ),
    }),
  },
  {
    weight: 1,
    arbitrary: fc.record({
      kind: fc.constant('indexPath' as const),
      name: fc.oneof(fc.constantFrom('..', '.', '%2E%2E', 'a%2Fb', '%zz', 'constructor', '__proto__', 'x'.repeat(300)), fc.string({ maxLength: 10 })),
      method: fc.constantFrom('GET' as const, 'DELETE' as const, 'PATCH' as const),
    }),
  },
);

// ---- the model and the run ----

/** What the server has acknowledged: id -> last acknowledged title (as stored: JSON text). */
export class Model {
  readonly acknowledged = new Map<string, string>();
  /** Ids the server refused and never acknowledged. */
  readonly refused = new Set<string>();
  /** Ids written through bulk, whose state the model does not follow. */
  readonly untracked = new Set<string>();
  readonly violations: string[] = [];

  ack(id: string, title: unknown): void {
    this.acknowledged.set(id, JSON.stringify(title));
    this.refused.delete(id);
    this.untracked.delete(id);
  }

  refuse(id: string): void {
    // An empty id cannot be named in a path; bulk-written ids are not followed.
    if (id !== '' && !this.acknowledged.has(id) && !this.untracked.has(id)) this.refused.add(id);
  }

  forget(id: string): void {
    this.acknowledged.delete(id);
    this.refused.delete(id);
    this.untracked.add(id);
  }
}

function idString(id: unknown): string | undefined {
  if (typeof id === 'string') return id;
  if (typeof id === 'number' && Number.isFinite(id)) return String(id);
  return undefined;
}

export function pathId(id: unknown): string {
  const text = String(id);
  try {
    return encodeURIComponent(text);
  } catch {
    // A lone surrogate: sent as the bytes Node would write for it (U+FFFD).
    return [...Buffer.from(text, 'utf8')].map((b) => `%${b.toString(16).padStart(2, '0')}`).join('');
  }
}

export async function runCommand(base: string, model: Model, cmd: Command): Promise<void> {
  const docs = `/v1/indexes/${INDEX}/documents`;
  let answer: RawAnswer;
  switch (cmd.kind) {
    case 'upsert': {
      const body = cmd.ndjson ? cmd.docs.map((d) => d.json).join('\n') : `[${cmd.docs.map((d) => d.json).join(',')}]`;
      answer = await raw(base, 'POST', docs, body, cmd.ndjson ? 'application/x-ndjson' : 'application/json');
      if (answer.status === 200) {
        const failed = new Set<number>((answer.body.errors as Array<{ position: number }>).map((e) => e.position));
        // The last version of an id in one request wins.
        cmd.docs.forEach((doc, position) => {
          const id = idString(doc.id);
          if (id === undefined) return;
          if (failed.has(position)) model.refuse(id);
          else model.ack(id, doc.title);
        });
        const ids = answer.body.ids as string[];
        if (!Array.isArray(ids)) model.violations.push(`upsert answered 200 without ids: ${answer.text.slice(0, 200)}`);
      } else if (answer.status < 500) {
        for (const doc of cmd.docs) {
          const id = idString(doc.id);
          if (id !== undefined) model.refuse(id);
        }
      }
      break;
    }
    case 'get':
      answer = await raw(base, 'GET', `${docs}/${pathId(cmd.id)}`);
      break;
    case 'delete': {
      answer = await raw(base, 'DELETE', `${docs}/${pathId(cmd.id)}`);
      const id = idString(cmd.id);
      if (answer.status === 200 && id !== undefined) model.acknowledged.delete(id);
      break;
    }
    case 'search': {
      answer = await raw(base, 'POST', `/v1/indexes/${INDEX}/search`, JSON.stringify(cmd.body));
      if (answer.status === 200) {
        const { total, hits } = answer.body as { total: number; hits: unknown[] };
        const size = (cmd.body as { size?: number }).size ?? 10;
        if (!Array.isArray(hits) || typeof total !== 'number' || hits.length > size || total < hits.length) {
          model.violations.push(
            `search answer inconsistent (total ${total}, ${Array.isArray(hits) ? hits.length : 'no'} hits, size ${size}) for ${JSON.stringify(cmd.body).slice(0, 300)}`,
          );
        }
      }
      break;
    }
    case 'bulk': {
      answer = await raw(base, 'POST', `/v1/indexes/${INDEX}/bulk`, cmd.lines.join('\n') + '\n', 'application/x-ndjson');
      // Bulk answers per line; acknowledged ids are checked through the single-document path only.
      for (const line of cmd.lines) {
        try {
          const id = idString((JSON.parse(line) as { id?: unknown })?.id);
          if (id !== undefined) model.forget(id);
        } catch {
          /* not JSON: nothing to track */
        }
      }
      break;
    }
    case 'indexPath':
      // Raw tokens (`..`, `%2E%2E`, `%zz`) go out as written; other names are percent-encoded.
      answer = await raw(
        base,
        cmd.method,
        `/v1/indexes/${/^[\x21-\x7e]*$/.test(cmd.name) ? cmd.name : pathId(cmd.name)}`,
        cmd.method === 'PATCH' ? '{}' : undefined,
      );
      break;
  }
  if (answer.status >= 500 && answer.status !== 503) {
    model.violations.push(`${cmd.kind} answered ${answer.status}: ${answer.text.slice(0, 300)} for ${JSON.stringify(cmd).slice(0, 300)}`);
  }
}

/** Checks invariants 3 and 4 against a (restarted) server. */
export async function checkDurability(base: string, model: Model): Promise<void> {
  for (const [id, title] of model.acknowledged) {
    const got = await raw(base, 'GET', `/v1/indexes/${INDEX}/documents/${pathId(id)}`);
    if (got.status !== 200) {
      model.violations.push(`acknowledged document ${JSON.stringify(id)} answers ${got.status} after restart`);
      continue;
    }
    if (JSON.stringify(got.body.document.title) !== title) {
      model.violations.push(
        `document ${JSON.stringify(id)} has title ${JSON.stringify(got.body.document.title)?.slice(0, 80)} after restart, acknowledged ${title.slice(0, 80)}`,
      );
    }
    const found = await raw(base, 'POST', `/v1/indexes/${INDEX}/search`, JSON.stringify({ q: '', filter: { in: { id: [id] } }, size: 1 }));
    if (found.status !== 200 || found.body.total !== 1) {
      model.violations.push(`acknowledged document ${JSON.stringify(id)} is not searchable after restart (${found.status}, total ${found.body?.total})`);
    }
  }
  for (const id of model.refused) {
    const got = await raw(base, 'GET', `/v1/indexes/${INDEX}/documents/${pathId(id)}`);
    const found = await raw(base, 'POST', `/v1/indexes/${INDEX}/search`, JSON.stringify({ q: '', filter: { in: { id: [id] } }, size: 1 }));
    if (got.status !== 404 || found.body?.total !== 0) {
      model.violations.push(`refused document ${JSON.stringify(id)} is half-present: GET ${got.status}, search total ${found.body?.total}`);
    }
  }
}

/** A probe in another process: GET /health every 100 ms, reporting the slowest answer (ms). */
export function startHealthProbe(base: string): { stop(): Promise<{ maxMs: number; probes: number; failures: number }> } {
  const child: ChildProcess = spawn(process.execPath, [
    '-e',
    `let max = 0, probes = 0, failures = 0, stopping = false;
     process.stdin.on('data', () => { stopping = true; });
     (async () => {
       while (!stopping) {
         const t = performance.now();
         try { const r = await fetch(${JSON.stringify(base)} + '/health', { signal: AbortSignal.timeout(5000) }); await r.text(); if (r.status !== 200) failures++; }
         catch { failures++; }
         max = Math.max(max, performance.now() - t); probes++;
         await new Promise((r) => setTimeout(r, 100));
       }
       process.stdout.write(JSON.stringify({ maxMs: Math.round(max), probes, failures }));
       process.exit(0);
     })();`,
  ]);
  let out = '';
  child.stdout!.on('data', (c) => (out += c));
  const exited = new Promise<void>((resolve) => child.on('exit', () => resolve()));
  return {
    async stop() {
      child.stdin!.write('stop\n');
      await exited;
      return JSON.parse(out) as { maxMs: number; probes: number; failures: number };
    },
  };
}

export const fuzzManifest = {
  listeners: [{ name: 'search', port: 0, plugins: ['search'] }],
  plugins: { search: {} },
};

export async function createFuzzIndex(app: TestApp): Promise<void> {
  const res = await raw(
    app.url(),
    'POST',
    '/v1/indexes',
    JSON.stringify({
      name: INDEX,
      mappings: { title: { type: 'text' }, tags: { type: 'keyword' }, year: { type: 'number' }, constructor: { type: 'keyword' }, toString: { type: 'text' } },
      settings: { vectorDimensions: DIMS },
    }),
  );
  if (res.status !== 200 && res.status !== 201) throw new Error(`cannot create the fuzz index: ${res.status} ${res.text}`);
}

export interface FuzzRun {
  violations: string[];
  health: { maxMs: number; probes: number; failures: number };
  acknowledged: number;
  refused: number;
  commands: number;
}

/** One whole run: a server, `runs` generated command sequences, a restart, the durability check. */
export async function fuzzApi(options: { seed: number; runs: number; maxCommands: number; dataDir: string }): Promise<FuzzRun> {
  let app = await createTestApp(fuzzManifest, { dataDir: options.dataDir });
  const model = new Model();
  let commands = 0;
  let health = { maxMs: 0, probes: 0, failures: 0 };
  try {
    await createFuzzIndex(app);
    const probe = startHealthProbe(app.url());
    try {
      await fc.assert(
        fc.asyncProperty(fc.array(commandArb, { minLength: 1, maxLength: options.maxCommands }), async (cmds) => {
          for (const cmd of cmds) {
            await runCommand(app.url(), model, cmd);
            commands++;
          }
          // Violations are collected, not thrown: shrinking would re-run commands against a server
          // whose state has moved on.
          return true;
        }),
        { seed: options.seed, numRuns: options.runs, endOnFailure: true },
      );
    } finally {
      health = await probe.stop();
    }
    // The server's side of every 500: its logged error, so a failure names its cause.
    for (const line of app.logs) {
      if (line.level === 'error' || line.level === 'fatal') {
        const err = line.err as { message?: string; stack?: string } | undefined;
        model.violations.push(`server error: ${err?.message ?? line.msg} ${err?.stack?.split('\n').slice(1, 4).join(' | ') ?? ''}`);
      }
    }
    await app.app.stop();
    app = await createTestApp(fuzzManifest, { dataDir: options.dataDir });
    await checkDurability(app.url(), model);
  } finally {
    await app.app.stop();
  }
  return { violations: model.violations, health, acknowledged: model.acknowledged.size, refused: model.refused.size, commands };
}
