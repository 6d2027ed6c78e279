import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, json, tempDir, type TestApp } from '../helpers/app.js';

const worker = { module: './plugins/worker/index.js' };
const manifest = (events?: object) => ({ listeners: [{ name: 'main', port: 0, plugins: ['worker'] }], plugins: { worker }, ...(events ? { events } : {}) });

async function call(t: TestApp, method: string, path: string, body?: unknown): Promise<any> {
  const res = await fetch(`${t.url()}${path}`, {
    method,
    headers: body === undefined ? {} : { 'content-type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  return json(res);
}

/** Reads SSE messages from a response until `stopAfter` messages or the stream ends, then drops the connection. */
async function readSse(res: Response, stopAfter: number, controller: AbortController): Promise<Array<{ id: number; event: string; data: any }>> {
  const out: Array<{ id: number; event: string; data: any }> = [];
  const reader = res.body!.getReader();
  const decoder = new TextDecoder();
  let buffer = '';
  try {
    while (out.length < stopAfter) {
      const { value, done } = await reader.read();
      if (done) break;
      buffer += decoder.decode(value, { stream: true });
      let end: number;
      while ((end = buffer.indexOf('\n\n')) !== -1 && out.length < stopAfter) {
        const block = buffer.slice(0, end);
        buffer = buffer.slice(end + 2);
        const fields = Object.fromEntries(
          block
            .split('\n')
            .filter((l) => !l.startsWith(':'))
            .map((l) => [l.slice(0, l.indexOf(':')), l.slice(l.indexOf(':') + 2)]),
        );
        if (fields.data === undefined) continue;
        out.push({ id: Number(fields.id), event: fields.event!, data: JSON.parse(fields.data) });
      }
    }
  } finally {
    controller.abort();
  }
  return out;
}

describe('ctx.events', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp(manifest());
  });
  afterAll(() => t.stop());

  it('appends entries with ids that increase by one, and reads them back filtered by type and subject', async () => {
    const a = (await call(t, 'POST', '/events', { type: 'note.created', data: { n: 1 }, subject: 'x' })).event;
    const b = (await call(t, 'POST', '/events', { type: 'note.deleted', data: { n: 2 }, subject: 'y' })).event;
    expect(b.id).toBe(a.id + 1);
    expect(a).toEqual({ id: a.id, type: 'note.created', time: expect.any(String), tenant: 'default', subject: 'x', data: { n: 1 } });
    const page = await call(t, 'GET', `/events?after=${a.id - 1}`);
    expect(page).toEqual({ ok: true, events: [a, b], next: b.id, more: false });
    const created = await call(t, 'GET', `/events?after=0&type=note.created`);
    expect(created.events.map((e: any) => e.id)).toEqual([a.id]);
    const prefix = await call(t, 'GET', `/events?after=0&type=note.*`);
    expect(prefix.events.map((e: any) => e.id)).toEqual([a.id, b.id]);
  });

  it('resumes an SSE feed from Last-Event-ID: every entry exactly once, even with appends racing the reconnect', async () => {
    const start = (await call(t, 'GET', '/events?after=0&limit=1000')).next as number;
    const firstController = new AbortController();
    const first = await fetch(`${t.url()}/events`, {
      headers: { accept: 'text/event-stream', 'last-event-id': String(start) },
      signal: firstController.signal,
    });
    const burst = call(t, 'POST', '/events/burst', { count: 3000 });
    // Leave mid-stream, while the burst is still being appended.
    const seen = await readSse(first, 700, firstController);
    expect(seen).toHaveLength(700);
    const lastSeen = seen.at(-1)!.id;
    const { last } = await burst;
    const secondController = new AbortController();
    const second = await fetch(`${t.url()}/events`, {
      headers: { accept: 'text/event-stream', 'last-event-id': String(lastSeen) },
      signal: secondController.signal,
    });
    const rest = await readSse(second, last - lastSeen, secondController);
    const ids = [...seen, ...rest].map((e) => e.id);
    expect(ids).toEqual(Array.from({ length: last - start }, (_, i) => start + 1 + i));
    expect(rest.every((e) => e.event === 'burst')).toBe(true);
  });
});

describe('ctx.events retention', () => {
  it('prunes to about maxEvents and tells a reader behind it with a gap marker, never a silent skip', async () => {
    const t = await createTestApp(manifest({ maxEvents: 5 }));
    try {
      const { last } = await call(t, 'POST', '/events/burst', { count: 40 });
      // Pruning runs in the background once the log is over its bound.
      let page: any;
      for (let i = 0; i < 50; i++) {
        page = await call(t, 'GET', '/events?after=0');
        if (page.gap && page.events.length <= 21) break;
        await new Promise((r) => setTimeout(r, 20));
      }
      // A log is pruned once it is a little over its bound (here 5 + 16), down to the bound.
      const firstKept = page.events[0].id as number;
      const kept = last - firstKept + 1;
      expect(kept).toBeGreaterThanOrEqual(5);
      expect(kept).toBeLessThanOrEqual(21);
      expect(page).toEqual({ ok: true, gap: { kind: 'gap', from: 1, to: firstKept - 1 }, events: expect.any(Array), next: last, more: false });
      expect(page.events.map((e: any) => e.id)).toEqual(Array.from({ length: kept }, (_, i) => firstKept + i));
      const controller = new AbortController();
      const res = await fetch(`${t.url()}/events`, { headers: { accept: 'text/event-stream', 'last-event-id': '3' }, signal: controller.signal });
      const messages = await readSse(res, kept + 1, controller);
      expect(messages[0]).toEqual({ id: firstKept - 1, event: 'gap', data: { from: 4, to: firstKept - 1 } });
      expect(messages.slice(1).map((m) => m.id)).toEqual(Array.from({ length: kept }, (_, i) => firstKept + i));
    } finally {
      await t.stop();
    }
  });

  it('keeps ids increasing across a restart, even after everything older was pruned', async () => {
    const dataDir = tempDir();
    const t1 = await createTestApp(manifest({ maxEvents: 1 }), { dataDir });
    const { last } = await call(t1, 'POST', '/events/burst', { count: 30 });
    await t1.stop();
    const t2 = await createTestApp(manifest({ maxEvents: 1 }), { dataDir });
    try {
      const next = (await call(t2, 'POST', '/events', { type: 'after-restart' })).event;
      expect(next.id).toBe(last + 1);
    } finally {
      await t2.stop();
    }
  });
});
