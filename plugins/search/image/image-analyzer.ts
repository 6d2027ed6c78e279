import { createHash } from 'node:crypto';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { Piscina } from 'piscina';
import type { AnalysisResult, AnalysisTask } from './analysis-worker.js';
import { readImageHeader } from './image-header.js';
import { imageErrors } from './image-errors.js';
import { buildMetadata, type ImageMetadata } from './image-metadata.js';
import type { ImageLimits } from './image-options.js';
import { classifyMotif, textEvidence } from './motif-classifier.js';
import { OcrFailure, OcrPool, type OcrResult } from './ocr-pool.js';

export interface AnalysisWarning {
  code: string;
  message: string;
}

export interface AnalysedImage {
  metadata: ImageMetadata;
  warnings: AnalysisWarning[];
  /** Milliseconds per stage, each without its wait for a free thread; `total` is the whole call, waits included. */
  timings: { decode: number; colors: number; motifs: number; ocr: number; total: number };
}

/**
 * The worker file must be real JavaScript: beside this module once built (dist/), or, when the
 * sources run under vitest, the built copy in dist/ (the test set-up builds it).
 */
function workerFile(): string {
  const sibling = fileURLToPath(new URL('./analysis-worker.js', import.meta.url));
  if (existsSync(sibling)) return sibling;
  return fileURLToPath(new URL('../../../dist/plugins/search/image/analysis-worker.js', import.meta.url));
}

/**
 * Image analysis for the route and for ingest: the header check, then decoding, colours and motif
 * statistics on a Piscina thread, then OCR on a tesseract worker thread. Nothing heavy runs on the
 * event loop. Admission is bounded: `workers` images in progress and `maxQueue` waiting, beyond
 * which `analyse` throws 429 image_analysis_busy at once.
 */
export class ImageAnalyzer {
  private readonly limits: ImageLimits;
  private readonly pool: Piscina<AnalysisTask, AnalysisResult>;
  readonly ocr: OcrPool;
  private pending = 0;

  constructor(limits: ImageLimits) {
    this.limits = limits;
    this.pool = new Piscina<AnalysisTask, AnalysisResult>({ filename: workerFile(), minThreads: 0, maxThreads: limits.workers, idleTimeout: 60_000 });
    // A worker that dies outside a task is replaced; without a listener the event would crash the host.
    this.pool.on('error', () => undefined);
    this.ocr = new OcrPool({ size: limits.workers, timeoutMs: limits.ocrTimeoutMs });
  }

  /** Images in progress or waiting. */
  get inFlight(): number {
    return this.pending;
  }

  async analyse(bytes: Uint8Array, options: { ocr?: boolean } = {}): Promise<AnalysedImage> {
    const header = readImageHeader(bytes);
    if (bytes.length === 0) throw imageErrors.invalid_image({ reason: 'the image is empty (0 bytes)' });
    if (!header) throw imageErrors.invalid_image({ reason: 'not a PNG, JPEG, GIF or BMP image' });
    if (header.width * header.height > this.limits.maxPixels) {
      throw imageErrors.image_too_many_pixels({ width: header.width, height: header.height, limit: this.limits.maxPixels });
    }
    if (this.pending >= this.limits.workers + this.limits.maxQueue) {
      throw imageErrors.image_analysis_busy({ pending: this.pending }, { headers: { 'retry-after': '1' } });
    }
    this.pending++;
    try {
      return await this.run(bytes, header, options.ocr !== false);
    } finally {
      this.pending--;
    }
  }

  async close(): Promise<void> {
    await Promise.all([this.pool.destroy(), this.ocr.close()]);
  }

  private async run(bytes: Uint8Array, header: NonNullable<ReturnType<typeof readImageHeader>>, withOcr: boolean): Promise<AnalysedImage> {
    const started = performance.now();
    let analysis: AnalysisResult;
    try {
      analysis = await this.pool.run({ bytes }, { signal: AbortSignal.timeout(this.limits.timeoutMs) });
    } catch (err) {
      if ((err as Error).name === 'AbortError' || (err as Error).name === 'TimeoutError')
        throw imageErrors.image_analysis_timeout({ timeoutMs: this.limits.timeoutMs });
      throw err;
    }
    if (!analysis.ok) throw imageErrors.invalid_image({ reason: analysis.reason });
    const warnings: AnalysisWarning[] = [];
    let ocr: OcrResult | null = null;
    if (withOcr) {
      try {
        ocr = await this.ocr.recognize(bytes);
      } catch (err) {
        if (!(err instanceof OcrFailure)) throw err;
        warnings.push({ code: err.code, message: err.message });
      }
    }
    const metadata = buildMetadata({
      image: { format: header.format, width: analysis.width, height: analysis.height, bytes: bytes.length, sha256: sha256(bytes) },
      colors: analysis.colors,
      motifs: classifyMotif(analysis.features, textEvidence(ocr?.words ?? [])),
      ocr,
    });
    const round = (ms: number): number => Math.round(ms * 10) / 10;
    return {
      metadata,
      warnings,
      timings: {
        decode: round(analysis.ms.decode),
        colors: round(analysis.ms.colors),
        motifs: round(analysis.ms.motifs),
        ocr: round(ocr?.ms ?? 0),
        total: round(performance.now() - started),
      },
    };
  }
}

export function sha256(bytes: Uint8Array): string {
  return createHash('sha256').update(bytes).digest('hex');
}
