import type { Database } from 'lmdb' with { 'resolution-mode': 'require' };
import { isTesseraError, type JobsService, type Logger } from 'tessera-runtime/plugin';
import { valuesAtPath } from '../index/document-validation.js';
import type { SearchEngine } from '../index/search-engine.js';
import { sha256, type ImageAnalyzer } from './image-analyzer.js';
import type { ImageMetadata } from './image-metadata.js';
import { readImageReference, type ImageSourceContext } from './image-source.js';
import { imageFieldsOf, VISUAL_FIELD } from './visual-mappings.js';

export const VISUAL_JOB = 'visual-extract';
/** Documents re-written per batch (one segment each). */
const BATCH = 16;
/** Images read per document, over all its image fields; further ones are listed as skipped. */
export const MAX_IMAGES_PER_DOCUMENT = 8;

/** What extraction stores in a document's `_visual`. */
export interface VisualDocumentField {
  text: string;
  tags: string[];
  colors: string[];
  motifs: string[];
  keywords: string[];
  images: Array<{
    field: string;
    sha256: string;
    format: string;
    width: number;
    height: number;
    colors: ImageMetadata['colorShares'];
    motifs: string[];
    ocrConfidence: number | null;
  }>;
  errors: Array<{ field: string; code: string; message: string }>;
  extractedAt: string;
}

export interface VisualStats {
  pending: number;
  extracted: number;
  reused: number;
  failed: number;
  lastError?: { id: string; field: string; code: string; message: string; at: string };
}

interface JobInput {
  tenant: string;
  index: string;
  ids: string[];
}

export interface VisualExtractionDeps {
  jobs: JobsService;
  log: Logger;
  analyzer: () => ImageAnalyzer;
  sources: () => ImageSourceContext;
  /** sha256 of the image bytes -> its metadata: a re-indexed document with the same image reuses it. */
  cache: Database<ImageMetadata, string>;
}

const keyOf = (tenant: string, index: string): string => `${tenant}\u0000${index}`;

/**
 * Visual extraction at ingest. After a write to an index that has image fields and
 * `enableVisualExtraction`, the written ids go to a background job (`visual-extract` on ctx.jobs):
 * it reads each document's images, analyses them (or takes the metadata of the same bytes from
 * the cache), and writes the document back with `_visual`. An image that cannot be read or
 * decoded is listed in `_visual.errors`; the document is still indexed and keeps its other
 * images. The job's own write-back is recognised and not extracted again.
 */
export class VisualExtraction {
  private readonly deps: VisualExtractionDeps;
  private engine: SearchEngine | undefined;
  /** Ids this job is writing back right now: their `documents.written` is not a new write. */
  private readonly selfWrites = new Set<string>();
  private readonly stats = new Map<string, VisualStats>();

  constructor(deps: VisualExtractionDeps) {
    this.deps = deps;
    deps.jobs.define(VISUAL_JOB, (job) => this.run(job.input as JobInput, job), { concurrency: 1, retry: { attempts: 2 } });
  }

  attach(engine: SearchEngine): void {
    this.engine = engine;
    engine.on('documents.written', ({ tenant, index, upserted }) => {
      const ids = upserted.filter((id) => !this.selfWrites.delete(`${keyOf(tenant, index)}\u0000${id}`));
      if (ids.length === 0 || !this.wants(tenant, index)) return;
      this.statsOf(tenant, index).pending += ids.length;
      void this.deps.jobs.enqueue(VISUAL_JOB, { tenant, index, ids } satisfies JobInput, { tenant }).catch((err: unknown) => {
        this.statsOf(tenant, index).pending -= ids.length;
        this.deps.log.error({ err, index }, 'visual extraction could not be queued');
      });
    });
    engine.on('index.dropped', ({ tenant, index }) => this.stats.delete(keyOf(tenant, index)));
  }

  /** `stats.visual` of an index with image fields (since this process started). */
  statsOf(tenant: string, index: string): VisualStats {
    const key = keyOf(tenant, index);
    let s = this.stats.get(key);
    if (!s) this.stats.set(key, (s = { pending: 0, extracted: 0, reused: 0, failed: 0 }));
    return s;
  }

  private wants(tenant: string, index: string): boolean {
    const engine = this.engine;
    if (!engine?.has(tenant, index)) return false;
    const record = engine.get(tenant, index).record;
    return record.settings.enableVisualExtraction && imageFieldsOf(record.mappings).length > 0;
  }

  private async run(
    input: JobInput,
    job: { signal: AbortSignal; lastProgress?: { details: Record<string, unknown> }; progress(v: number, d?: Record<string, unknown>): void },
  ): Promise<unknown> {
    const { tenant, index, ids } = input;
    const stats = this.statsOf(tenant, index);
    let done = Number(job.lastProgress?.details.done ?? 0);
    try {
      while (done < ids.length) {
        if (job.signal.aborted) throw new Error('stopped');
        if (!this.wants(tenant, index)) break;
        const batch = ids.slice(done, done + BATCH);
        await this.extractBatch(tenant, index, batch);
        done += batch.length;
        stats.pending = Math.max(0, stats.pending - batch.length);
        job.progress(done / ids.length, { done });
      }
    } finally {
      if (done < ids.length && !job.signal.aborted) stats.pending = Math.max(0, stats.pending - (ids.length - done));
    }
    return { documents: done };
  }

  private async extractBatch(tenant: string, index: string, ids: string[]): Promise<void> {
    const engine = this.engine!;
    const stats = this.statsOf(tenant, index);
    const fields = imageFieldsOf(engine.get(tenant, index).record.mappings);
    const updated: Array<{ before: string; doc: Record<string, unknown> }> = [];
    for (const id of ids) {
      const doc = engine.get(tenant, index).getDocument(id);
      // A document without images is not written again: it has no `_visual` to gain.
      if (!doc || !fields.some((f) => valuesAtPath(doc, f).some((v) => typeof v === 'string' && v !== ''))) continue;
      const visual = await this.extractDocument(id, doc, fields, stats);
      const { [VISUAL_FIELD]: _previous, ...rest } = doc;
      updated.push({ before: JSON.stringify(rest), doc: { ...rest, [VISUAL_FIELD]: visual } });
    }
    // A document written again while its images were read is left to that write's own job.
    const current = engine.get(tenant, index);
    const writes = updated.filter(({ before, doc }) => {
      const now = current.getDocument(String(doc.id));
      if (!now) return false;
      const { [VISUAL_FIELD]: _v, ...rest } = now;
      return JSON.stringify(rest) === before;
    });
    if (writes.length === 0) return;
    const keys = writes.map(({ doc }) => `${keyOf(tenant, index)}\u0000${String(doc.id)}`);
    for (const k of keys) this.selfWrites.add(k);
    try {
      const result = await current.upsert(writes.map((w) => w.doc));
      for (const e of result.errors) stats.lastError = { id: e.id ?? '', field: VISUAL_FIELD, code: e.code, message: e.message, at: new Date().toISOString() };
    } finally {
      for (const k of keys) this.selfWrites.delete(k);
    }
  }

  private async extractDocument(id: string, doc: Record<string, unknown>, fields: string[], stats: VisualStats): Promise<VisualDocumentField> {
    const out: VisualDocumentField = {
      text: '',
      tags: [],
      colors: [],
      motifs: [],
      keywords: [],
      images: [],
      errors: [],
      extractedAt: new Date().toISOString(),
    };
    const texts: string[] = [];
    let read = 0;
    for (const field of fields) {
      for (const value of valuesAtPath(doc, field)) {
        if (typeof value !== 'string' || value === '') continue;
        if (read++ >= MAX_IMAGES_PER_DOCUMENT) {
          out.errors.push({ field, code: 'too_many_images', message: `Only the first ${MAX_IMAGES_PER_DOCUMENT} images of a document are read` });
          continue;
        }
        try {
          const metadata = await this.metadataOf(value, stats);
          if (metadata.ocr?.text) texts.push(metadata.ocr.text);
          out.tags.push(...metadata.tags);
          out.colors.push(...metadata.colors);
          out.motifs.push(...metadata.motifs);
          out.keywords.push(...metadata.suggestedKeywords);
          out.images.push({
            field,
            sha256: metadata.image.sha256,
            format: metadata.image.format,
            width: metadata.image.width,
            height: metadata.image.height,
            colors: metadata.colorShares,
            motifs: metadata.motifs,
            ocrConfidence: metadata.ocr?.confidence ?? null,
          });
        } catch (err) {
          const code = isTesseraError(err) ? err.code : 'internal_error';
          const message = isTesseraError(err) && err.status < 500 ? err.message : 'The image could not be analysed';
          if (!isTesseraError(err) || err.status >= 500) this.deps.log.warn({ err, id, field }, 'visual extraction failed');
          out.errors.push({ field, code, message });
          stats.failed++;
          stats.lastError = { id, field, code, message, at: new Date().toISOString() };
        }
      }
    }
    out.text = texts.join('\n');
    for (const key of ['tags', 'colors', 'motifs', 'keywords'] as const) out[key] = [...new Set(out[key])];
    return out;
  }

  private async metadataOf(reference: string, stats: VisualStats): Promise<ImageMetadata> {
    const bytes = await readImageReference(reference, this.deps.sources());
    const hash = sha256(bytes);
    const cached = this.deps.cache.get(hash);
    if (cached) {
      stats.reused++;
      return cached;
    }
    const { metadata, warnings } = await this.deps.analyzer().analyse(bytes);
    stats.extracted++;
    // Only complete results are reused: an image whose OCR failed is read again next time.
    if (warnings.length === 0) await this.deps.cache.put(hash, metadata);
    return metadata;
  }
}
