import { createRequire } from 'node:module';
import path from 'node:path';
import { createWorker, OEM, type Worker } from 'tesseract.js';

/** Words OCR is less sure of than this (0-100) are noise: dropped from `words`, tags and keywords. */
export const MIN_WORD_CONFIDENCE = 70;

export interface OcrWord {
  text: string;
  confidence: number;
  bbox: { x0: number; y0: number; x1: number; y1: number };
}

export interface OcrResult {
  /** The page text as tesseract reads it (trimmed). */
  text: string;
  /** Mean confidence of the page, 0-100. */
  confidence: number;
  /** Words at or above MIN_WORD_CONFIDENCE with at least one letter or digit, punctuation trimmed. */
  words: OcrWord[];
  /** Milliseconds of recognition, without the wait for a free worker (a cold start included). */
  ms: number;
}

export type OcrFailureCode = 'ocr_timeout' | 'ocr_worker_failed' | 'ocr_unavailable';

/** OCR did not answer: the caller answers without `ocr` and with this as a warning. */
export class OcrFailure extends Error {
  readonly code: OcrFailureCode;
  constructor(code: OcrFailureCode, message: string) {
    super(message);
    this.code = code;
  }
}

/** Tesseract's English model, shipped in @tesseract.js-data/eng: never fetched from a CDN. */
const langPath = path.join(path.dirname(createRequire(import.meta.url).resolve('@tesseract.js-data/eng/package.json')), '4.0.0_best_int');

interface Slot {
  worker?: Promise<Worker>;
  busy: boolean;
  /** Fails the recognition in flight on this slot (timeout, recycle). */
  fail?: (err: OcrFailure) => void;
}

export interface OcrPoolOptions {
  /** Tesseract workers (each its own thread, ~40 MB once warm). */
  size: number;
  /** One recognition's budget; past it the worker is killed and replaced. */
  timeoutMs: number;
}

/**
 * A small pool of warm tesseract.js workers, created on first use and reused. Each worker is its
 * own thread, so recognition never blocks the event loop. A recognition that outlives the budget
 * or whose worker dies is failed with OcrFailure and its worker is terminated; the next
 * recognition on that slot starts a fresh worker, so a hung or crashed worker costs one answer,
 * never the process. Callers wait for a free worker; the route bounds how many wait.
 */
export class OcrPool {
  private readonly slots: Slot[];
  private readonly waiting: Array<(slot: Slot) => void> = [];
  private readonly options: OcrPoolOptions;
  private closed = false;
  restarts = 0;

  constructor(options: OcrPoolOptions) {
    this.options = options;
    this.slots = Array.from({ length: options.size }, () => ({ busy: false }));
  }

  get queued(): number {
    return this.waiting.length;
  }

  get busy(): number {
    return this.slots.filter((s) => s.busy).length;
  }

  async recognize(image: Uint8Array): Promise<OcrResult> {
    const slot = await this.acquire();
    try {
      return await this.run(slot, image);
    } finally {
      this.release(slot);
    }
  }

  /** Kills every worker that is recognising now (their callers get ocr_worker_failed) and starts over. */
  recycle(): void {
    for (const slot of this.slots) if (slot.busy) this.kill(slot, new OcrFailure('ocr_worker_failed', 'The OCR worker was stopped during recognition'));
  }

  async close(): Promise<void> {
    this.closed = true;
    for (const resolve of this.waiting.splice(0)) resolve({ busy: true });
    await Promise.all(
      this.slots.map(async (slot) => {
        const worker = slot.worker;
        slot.worker = undefined;
        slot.fail?.(new OcrFailure('ocr_unavailable', 'OCR is shutting down'));
        if (worker) await worker.then((w) => w.terminate()).catch(() => undefined);
      }),
    );
  }

  private acquire(): Promise<Slot> {
    if (this.closed) return Promise.reject(new OcrFailure('ocr_unavailable', 'OCR is shutting down'));
    const free = this.slots.find((s) => !s.busy);
    if (free) {
      free.busy = true;
      return Promise.resolve(free);
    }
    return new Promise((resolve) => this.waiting.push(resolve));
  }

  private release(slot: Slot): void {
    const next = this.waiting.shift();
    if (next && !this.closed) next(slot);
    else slot.busy = false;
  }

  private async run(slot: Slot, image: Uint8Array): Promise<OcrResult> {
    if (this.closed) throw new OcrFailure('ocr_unavailable', 'OCR is shutting down');
    slot.worker ??= this.start();
    let worker: Worker;
    try {
      worker = await slot.worker;
    } catch (err) {
      slot.worker = undefined;
      throw new OcrFailure('ocr_unavailable', `The OCR worker did not start: ${(err as Error).message}`);
    }
    return new Promise<OcrResult>((resolve, reject) => {
      let settled = false;
      const settle = (fn: () => void): void => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        slot.fail = undefined;
        fn();
      };
      slot.fail = (err) => settle(() => reject(err));
      const started = performance.now();
      const timer = setTimeout(
        () => this.kill(slot, new OcrFailure('ocr_timeout', `OCR took longer than ${this.options.timeoutMs} ms`)),
        this.options.timeoutMs,
      );
      worker.recognize(Buffer.from(image.buffer, image.byteOffset, image.byteLength), {}, { text: true, blocks: true }).then(
        (result) => settle(() => resolve({ ...toResult(result.data), ms: performance.now() - started })),
        (err: unknown) => this.kill(slot, new OcrFailure('ocr_worker_failed', `The OCR worker failed: ${err instanceof Error ? err.message : String(err)}`)),
      );
    });
  }

  /** Fails the slot's recognition and terminates its worker; the next use starts a new one. */
  private kill(slot: Slot, reason: OcrFailure): void {
    const worker = slot.worker;
    slot.worker = undefined;
    this.restarts++;
    slot.fail?.(reason);
    // A terminated tesseract worker never settles its pending job: the caller was answered above.
    if (worker) void worker.then((w) => w.terminate()).catch(() => undefined);
  }

  private start(): Promise<Worker> {
    return createWorker('eng', OEM.LSTM_ONLY, { langPath, gzip: true, cacheMethod: 'none', errorHandler: () => undefined });
  }
}

interface TesseractPage {
  text: string;
  confidence: number;
  blocks: Array<{ paragraphs: Array<{ lines: Array<{ words: Array<{ text: string; confidence: number; bbox: OcrWord['bbox'] }> }> }> }> | null;
}

function toResult(page: TesseractPage): Omit<OcrResult, 'ms'> {
  const words: OcrWord[] = [];
  for (const block of page.blocks ?? [])
    for (const paragraph of block.paragraphs)
      for (const line of paragraph.lines)
        for (const word of line.words) {
          const text = word.text.replace(/^[^\p{L}\p{N}]+|[^\p{L}\p{N}]+$/gu, '');
          if (text === '' || word.confidence < MIN_WORD_CONFIDENCE) continue;
          words.push({ text, confidence: Math.round(word.confidence * 10) / 10, bbox: word.bbox });
        }
  return { text: page.text.trim(), confidence: Math.round(page.confidence * 10) / 10, words };
}
