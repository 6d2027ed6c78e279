import { createHash } from 'node:crypto';
import { opendir, realpath, stat } from 'node:fs/promises';
import path from 'node:path';
import { watch, type FSWatcher } from 'chokidar';
import picomatch from 'picomatch';
import type { Logger } from 'tessera-runtime/plugin';
import { readFingerprint } from './fingerprint.js';
import type { IndexShape, IndexSink } from './index-sink.js';
import type { Roots } from './roots.js';
import type { ScanRun } from './scan-run.js';
import type { Fingerprint, ScanStore } from './scan-store.js';
import { extractText, kindOfName } from './text-extract.js';

export interface FolderScanSpec {
  /** The folder's real path (checked against the roots when the scan was asked for). */
  root: string;
  watch: boolean;
  include?: string[];
  exclude?: string[];
}

export interface FolderScanDeps {
  run: ScanRun;
  sink: IndexSink;
  store: ScanStore;
  roots: Roots;
  batchDocs: number;
  maxTextBytes: number;
  watchStabilityMs: number;
  signal: AbortSignal;
  log: Logger;
  /** Called once the first pass is done and the watch is live. */
  onWatching(): Promise<void>;
}

/** The index a folder scan creates on first use. */
export const folderIndexShape: IndexShape = {
  dynamic: false,
  mappings: {
    path: { type: 'keyword' },
    relativePath: { type: 'keyword' },
    name: { type: 'text' },
    extension: { type: 'keyword' },
    kind: { type: 'keyword' },
    size: { type: 'number' },
    mtime: { type: 'date' },
    hash: { type: 'keyword' },
    title: { type: 'text' },
    content: { type: 'text' },
    truncated: { type: 'boolean' },
  },
};

const maxIdBytes = 512;

/** A file's document id: its absolute path (a digest of it when the path is too long for an id). */
export function fileDocumentId(absolute: string): string {
  return Buffer.byteLength(absolute) <= maxIdBytes ? absolute : `sha256:${createHash('sha256').update(absolute).digest('hex')}`;
}

interface Pending {
  rel: string;
  id: string;
  fingerprint: Fingerprint | null;
}

/**
 * Rule 2 of the seed: walks the folder, fingerprints every file (SHA-256, streamed) and diffs
 * against the fingerprints stored by the last scan of the same source. Created and modified files
 * are indexed, deleted ones removed; a rename is a delete plus a create. With `watch`, chokidar
 * then applies each change as it happens.
 */
export class FolderScan {
  private readonly spec: FolderScanSpec;
  private readonly deps: FolderScanDeps;
  private readonly included: (rel: string) => boolean;
  private readonly excluded: (rel: string) => boolean;
  private pending: Pending[] = [];
  /** Changes applied while watching, told to the event log once the index has acknowledged them. */
  private applied: Array<{ change: 'created' | 'modified' | 'deleted'; rel: string }> = [];

  constructor(spec: FolderScanSpec, deps: FolderScanDeps) {
    this.spec = spec;
    this.deps = deps;
    const include = spec.include?.length ? picomatch(spec.include, { dot: true }) : undefined;
    const exclude = spec.exclude?.length ? picomatch(spec.exclude, { dot: true }) : undefined;
    this.included = (rel) => include === undefined || include(rel);
    // A pattern excludes a path or any folder above it (`node_modules` or `**/node_modules` prunes the tree).
    this.excluded = (rel) => exclude !== undefined && (exclude(rel) || rel.split('/').some((_, i, parts) => exclude(parts.slice(0, i + 1).join('/'))));
  }

  private get fingerprints() {
    return this.deps.store.fingerprints(this.deps.run.tenant);
  }

  private get sourceKey(): string {
    return this.deps.run.record.sourceKey;
  }

  async run(): Promise<void> {
    const { run, sink, signal } = this.deps;
    await sink.ensureIndex();
    let watcher: FSWatcher | undefined;
    const queue: Array<{ event: string; file: string }> = [];
    let wake: (() => void) | undefined;
    if (this.spec.watch) {
      // Watch before walking, so a change made during the first pass is not missed (it is applied twice at worst, and the second finds nothing to do).
      watcher = watch(this.spec.root, {
        ignoreInitial: true,
        followSymlinks: false,
        awaitWriteFinish: { stabilityThreshold: this.deps.watchStabilityMs, pollInterval: Math.max(10, Math.min(100, this.deps.watchStabilityMs / 4)) },
        ignored: (p) => {
          const rel = this.relative(p);
          return rel !== '' && this.excluded(rel);
        },
      });
      watcher.on('all', (event, file) => {
        queue.push({ event, file });
        wake?.();
      });
      watcher.on('error', (err) => this.deps.log.warn({ err, scan: run.record.id }, 'folder watch error'));
      await new Promise<void>((resolve) => watcher!.once('ready', () => resolve()));
    }
    try {
      await this.firstPass();
      if (!watcher) return;
      await this.deps.onWatching();
      while (!signal.aborted) {
        if (queue.length === 0) {
          await new Promise<void>((resolve) => {
            wake = resolve;
            signal.addEventListener('abort', () => resolve(), { once: true });
          });
          wake = undefined;
          continue;
        }
        while (queue.length > 0 && !signal.aborted) {
          const { event, file } = queue.shift()!;
          await this.applyChange(event, file);
        }
        await this.checkpoint();
        const applied = this.applied;
        this.applied = [];
        for (const a of applied) await run.change(a.change, a.rel);
      }
      throw signal.reason instanceof Error ? signal.reason : new Error(String(signal.reason));
    } finally {
      await watcher?.close();
    }
  }

  private relative(p: string): string {
    return path.relative(this.spec.root, p).split(path.sep).join('/');
  }

  private async firstPass(): Promise<void> {
    const { run, signal } = this.deps;
    const seen = new Set<string>();
    for await (const entry of this.walk(this.spec.root)) {
      if (signal.aborted) throw signal.reason instanceof Error ? signal.reason : new Error(String(signal.reason));
      seen.add(entry.rel);
      await this.indexFile(entry.rel, entry.absolute, entry.real);
      run.record.progress.done = run.counts.seen;
    }
    const gone: string[] = [];
    for (const { path: rel } of this.deps.store.sourceFingerprints(run.tenant, this.sourceKey)) if (!seen.has(rel)) gone.push(rel);
    for (const rel of gone) await this.removeFile(rel);
    await this.checkpoint();
  }

  private async *walk(dir: string): AsyncGenerator<{ rel: string; absolute: string; real: string }> {
    const { run, roots } = this.deps;
    let handle;
    try {
      handle = await opendir(dir);
    } catch (err) {
      run.counts.errors++;
      this.deps.log.warn({ err: { message: (err as Error).message }, dir }, 'folder scan could not read a folder');
      return;
    }
    const entries: Array<{ name: string; dir: boolean; file: boolean; link: boolean }> = [];
    for await (const d of handle) entries.push({ name: d.name, dir: d.isDirectory(), file: d.isFile(), link: d.isSymbolicLink() });
    // Sorted, so the order of a pass (and of its batches) does not depend on the file system.
    entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
    for (const e of entries) {
      const absolute = path.join(dir, e.name);
      const rel = this.relative(absolute);
      if (this.excluded(rel)) {
        run.counts.skipped++;
        continue;
      }
      if (e.dir) {
        yield* this.walk(absolute);
      } else if (e.file) {
        if (this.included(rel)) yield { rel, absolute, real: absolute };
        else run.counts.skipped++;
      } else if (e.link) {
        // A link is followed only to a file inside the roots; folders behind links are not entered (no cycles, no escape).
        const real = await realpath(absolute).catch(() => undefined);
        const target = real ? await stat(real).catch(() => undefined) : undefined;
        if (real && target?.isFile() && roots.contains(real) && this.included(rel)) yield { rel, absolute, real };
        else run.counts.skipped++;
      }
    }
  }

  /** Fingerprints one file and indexes it when it is new or its content changed. */
  private async indexFile(rel: string, absolute: string, real: string): Promise<'created' | 'modified' | 'unchanged' | 'error'> {
    const { run, sink } = this.deps;
    run.counts.seen++;
    const kind = kindOfName(path.basename(absolute));
    let read;
    let mtimeMs: number;
    try {
      const info = await stat(real);
      mtimeMs = info.mtimeMs;
      read = await readFingerprint(real, kind === 'binary' ? 0 : this.deps.maxTextBytes);
    } catch (err) {
      // Gone between listing and reading, or unreadable: the next pass or event sees it again.
      run.counts.errors++;
      this.deps.log.debug({ file: absolute, err: { message: (err as Error).message } }, 'folder scan could not read a file');
      return 'error';
    }
    const stored = this.fingerprints.get([this.sourceKey, rel]);
    if (stored && stored.hash === read.hash) return 'unchanged';
    const id = fileDocumentId(absolute);
    const extension = path.extname(absolute).slice(1).toLowerCase();
    const doc: Record<string, unknown> = {
      id,
      path: absolute,
      relativePath: rel,
      name: path.basename(absolute),
      extension,
      size: read.size,
      mtime: new Date(mtimeMs).toISOString(),
      hash: read.hash,
    };
    if (kind !== 'binary' && !read.binary && read.head) {
      const text = extractText(kind, read.head);
      doc.kind = kind;
      if (text.title) doc.title = text.title;
      doc.content = text.content;
      doc.truncated = read.truncated;
    } else {
      doc.kind = 'binary';
    }
    await sink.upsert(doc);
    if (stored) run.counts.modified++;
    else run.counts.created++;
    this.pending.push({ rel, id, fingerprint: { hash: read.hash, size: read.size, mtimeMs } });
    if (this.pending.length >= this.deps.batchDocs) await this.checkpoint();
    return stored ? 'modified' : 'created';
  }

  private async removeFile(rel: string): Promise<boolean> {
    if (!this.fingerprints.doesExist([this.sourceKey, rel])) return false;
    const id = fileDocumentId(path.join(this.spec.root, ...rel.split('/')));
    await this.deps.sink.delete(id);
    this.deps.run.counts.deleted++;
    this.pending.push({ rel, id, fingerprint: null });
    if (this.pending.length >= this.deps.batchDocs) await this.checkpoint();
    return true;
  }

  /** Waits for the index to acknowledge what was sent, then stores the fingerprints of what it took. */
  private async checkpoint(): Promise<void> {
    const { run, sink } = this.deps;
    const result = await sink.flush();
    const refused = run.acknowledge(result);
    const pending = this.pending;
    this.pending = [];
    const fingerprints = this.fingerprints;
    await run.checkpoint(() => {
      for (const p of pending) {
        // A refused document keeps no fingerprint, so the next pass tries it again.
        if (p.fingerprint === null || refused.has(p.id)) void fingerprints.remove([this.sourceKey, p.rel]);
        else void fingerprints.put([this.sourceKey, p.rel], p.fingerprint);
      }
    });
  }

  /** One chokidar event, while watching. */
  private async applyChange(event: string, file: string): Promise<void> {
    const rel = this.relative(file);
    if (rel === '' || rel.startsWith('..')) return;
    if (event === 'add' || event === 'change') {
      if (!this.included(rel)) return;
      // A link made while watching is judged like one found by the walk: its target must be a file inside the roots.
      const real = await realpath(file).catch(() => undefined);
      const target = real ? await stat(real).catch(() => undefined) : undefined;
      if (!real || !target?.isFile() || !this.deps.roots.contains(real)) {
        this.deps.run.counts.skipped++;
        return;
      }
      const outcome = await this.indexFile(rel, file, real);
      if (outcome === 'created' || outcome === 'modified') await this.tell(outcome, rel);
    } else if (event === 'unlink') {
      if (await this.removeFile(rel)) await this.tell('deleted', rel);
    } else if (event === 'unlinkDir') {
      const prefix = `${rel}/`;
      const gone: string[] = [];
      for (const { path: stored } of this.deps.store.sourceFingerprints(this.deps.run.tenant, this.sourceKey)) if (stored.startsWith(prefix)) gone.push(stored);
      for (const r of gone) if (await this.removeFile(r)) await this.tell('deleted', r);
    }
  }

  private async tell(change: 'created' | 'modified' | 'deleted', rel: string): Promise<void> {
    this.deps.run.record.progress.done = this.deps.run.counts.seen;
    this.applied.push({ change, rel });
  }
}
