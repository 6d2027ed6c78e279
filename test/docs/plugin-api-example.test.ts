import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { Writable } from 'node:stream';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { App } from '../../runtime/app.js';
import { createLogger } from '../../runtime/logger.js';
import { resolveManifest } from '../../runtime/manifest.js';
import { Store } from '../../runtime/store.js';
import { json, repoRoot, tempDir } from '../helpers/app.js';

/** The fenced block right under a `### <heading>` of docs/plugin-api.md, verbatim. */
function blockUnder(doc: string, heading: string): string {
  const at = doc.indexOf(`### ${heading}\n`);
  if (at === -1) throw new Error(`docs/plugin-api.md has no heading "${heading}"`);
  const open = doc.indexOf('```', at);
  const start = doc.indexOf('\n', open) + 1;
  return doc.slice(start, doc.indexOf('\n```', start) + 1);
}

/** The JSON answer shown right after the curl command containing `command`. */
function documentedAnswer(doc: string, command: string): unknown {
  const at = doc.indexOf(command);
  const open = doc.indexOf('```json\n', at) + '```json\n'.length;
  return JSON.parse(doc.slice(open, doc.indexOf('\n', open)));
}

describe('the worked example of docs/plugin-api.md, run verbatim', () => {
  const doc = readFileSync(path.join(repoRoot, 'docs/plugin-api.md'), 'utf8');
  const dir = tempDir('tessera-notes-');
  let app: App;
  let base: string;
  beforeAll(async () => {
    for (const name of ['notes', 'notes-stats']) {
      mkdirSync(path.join(dir, name));
      writeFileSync(path.join(dir, name, 'index.js'), blockUnder(doc, `\`${name}/index.js\``));
      writeFileSync(path.join(dir, name, 'package.json'), blockUnder(doc, `\`${name}/package.json\``));
    }
    mkdirSync(path.join(dir, 'notes', 'ui'));
    writeFileSync(path.join(dir, 'notes', 'ui', 'index.html'), blockUnder(doc, '`notes/ui/index.html`'));
    const manifest = JSON.parse(blockUnder(doc, '`manifest.json`'));
    manifest.listeners[0].port = 0;
    const file = path.join(dir, 'manifest.json');
    writeFileSync(file, JSON.stringify(manifest));
    const sink = new Writable({ write: (_c, _e, done) => done() });
    app = await App.create(resolveManifest(manifest, { file, dir, dataDir: path.join(dir, 'data') }), {
      logger: createLogger({ level: 'silent', destination: sink }),
    });
    await app.start();
    base = app.url('main');
  });
  afterAll(async () => {
    await app.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  it('records the store format of notes on a new store', async () => {
    const store = Store.open(path.join(dir, 'data'), { readOnly: true });
    try {
      expect(store.namespace('notes').formatVersion()).toBe(1);
    } finally {
      await store.close();
    }
  });

  it('serves the page of its ui folder', async () => {
    const page = await fetch(`${base}/notes-ui/`);
    expect(page.status).toBe(200);
    expect(page.headers.get('content-type')).toContain('text/html');
    expect(await page.text()).toContain('<title>Notes</title>');
  });

  it('creates and reads a note, answers the declared note_not_found, and counts through the dependent plugin', async () => {
    const created = await fetch(`${base}/notes`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{"title":"Groceries","text":"Milk, eggs, coffee"}',
    });
    expect(created.status).toBe(201);
    expect(created.headers.get('location')).toBe('/notes/1');
    expect(await json(created)).toEqual({ ok: true, note: { id: '1', title: 'Groceries', text: 'Milk, eggs, coffee' } });
    expect(await json(await fetch(`${base}/notes/1`))).toEqual({ ok: true, note: { id: '1', title: 'Groceries', text: 'Milk, eggs, coffee' } });
    const missing = await fetch(`${base}/notes/42`);
    expect(missing.status).toBe(404);
    expect(await json(missing)).toEqual(documentedAnswer(doc, 'curl http://127.0.0.1:4100/notes/42'));
    expect(await json(await fetch(`${base}/stats/notes`))).toEqual(documentedAnswer(doc, 'curl http://127.0.0.1:4100/stats/notes'));
  });

  it('runs the word count as a job, as documented', async () => {
    const started = await fetch(`${base}/notes/word-count`, { method: 'POST' });
    expect(started.status).toBe(202);
    const { job } = await json(started);
    expect(job).toEqual({ id: expect.stringMatching(/^job_/), state: 'queued' });
    let record: any;
    for (let i = 0; i < 100 && record?.job.state !== 'completed'; i++) {
      record = await json(await fetch(`${base}/notes/jobs/${job.id}`));
      await sleep(20);
    }
    expect(record).toEqual({ ok: true, job: { id: job.id, state: 'completed', progress: 1, result: { notes: 1, words: 3 } } });
  });

  it('streams the note.created event with its id, type and data', async () => {
    const controller = new AbortController();
    const res = await fetch(`${base}/notes/events`, { signal: controller.signal });
    const reader = res.body!.getReader();
    let text = '';
    const complete = (): boolean => text.includes('event: note.created') && text.indexOf('\n\n', text.indexOf('event: note.created')) !== -1;
    while (!complete()) text += new TextDecoder().decode((await reader.read()).value);
    controller.abort();
    expect(text).toMatch(
      /^retry: 2000\n\nid: 1\nevent: note\.created\ndata: \{"id":1,"type":"note\.created","time":"[^"]+","tenant":"default","subject":"1","data":\{"id":"1","title":"Groceries"\}\}\n/,
    );
  });
});
