import { createReadStream } from 'node:fs';
import { stat } from 'node:fs/promises';
import { parse } from 'csv-parse';
import type { IndexShape, IndexSink } from './index-sink.js';
import type { ScanRun } from './scan-run.js';
import type { ScanStore } from './scan-store.js';

export interface FileScanSpec {
  /** The file's real path (checked against the roots when the scan was asked for). */
  file: string;
  format: 'jsonl' | 'csv';
  idField?: string;
}

export interface FileScanDeps {
  run: ScanRun;
  sink: IndexSink;
  store: ScanStore;
  batchDocs: number;
  maxLineBytes: number;
  signal: AbortSignal;
}

/** Where a file scan resumes: the byte after the last acknowledged record, its line, and the CSV header. */
export interface FilePosition {
  offset: number;
  line: number;
  columns?: string[];
}

/** File scans do not know their fields up front: the index they create maps fields as they come. */
export const fileIndexShape: IndexShape = { dynamic: true, mappings: {} };

interface Parsed {
  /** 1-based line where the record starts. */
  line: number;
  /** Byte offset just after the record. */
  end: number;
  /** The record's last line (a CSV record may span several). */
  endLine: number;
  record?: Record<string, unknown>;
  error?: string;
}

/**
 * Rule 3 of the seed: streams a JSONL or CSV file into the index in batches, never holding more
 * than a batch and one line. A bad line is counted and listed with its number, and the scan goes
 * on. After each acknowledged batch the position is stored, so a restarted scan continues there.
 */
export class FileScan {
  private readonly spec: FileScanSpec;
  private readonly deps: FileScanDeps;

  constructor(spec: FileScanSpec, deps: FileScanDeps) {
    this.spec = spec;
    this.deps = deps;
  }

  private positionKey(): string {
    return `file:${this.deps.run.record.id}`;
  }

  async run(): Promise<void> {
    const { run, sink, signal } = this.deps;
    await sink.ensureIndex();
    const size = (await stat(this.spec.file)).size;
    const cursors = this.deps.store.cursors(run.tenant);
    const saved = cursors.get(this.positionKey()) as unknown as FilePosition | undefined;
    let position: FilePosition = saved ?? { offset: 0, line: 0 };
    run.record.progress = { unit: 'bytes', done: position.offset, total: size };
    let inBatch = 0;
    let ids: Array<{ id: string; line: number }> = [];
    const checkpoint = async (next: FilePosition): Promise<void> => {
      const result = await sink.flush();
      run.acknowledge(result);
      const refused = new Map(result.errors.filter((e) => e.id !== undefined).map((e) => [e.id!, e.message]));
      for (const { id, line } of ids) {
        const why = refused.get(id);
        if (why !== undefined) {
          // Counted by acknowledge(); listed here with its line.
          run.counts.errors--;
          run.badLine(line, why);
        }
      }
      ids = [];
      inBatch = 0;
      position = next;
      run.record.progress.done = next.offset;
      await run.checkpoint(() => void cursors.put(this.positionKey(), next as never));
    };
    const records = this.spec.format === 'csv' ? this.csv(position) : this.jsonl(position);
    let last: FilePosition = position;
    for await (const parsed of records) {
      if (signal.aborted) throw signal.reason instanceof Error ? signal.reason : new Error(String(signal.reason));
      run.counts.seen++;
      last = { offset: parsed.end, line: parsed.endLine, ...(this.columns ? { columns: this.columns } : {}) };
      if (parsed.error !== undefined) {
        run.badLine(parsed.line, parsed.error);
        continue;
      }
      const doc = parsed.record!;
      let id: string;
      if (this.spec.idField !== undefined) {
        const value = doc[this.spec.idField];
        if ((typeof value !== 'string' && typeof value !== 'number') || value === '') {
          run.badLine(parsed.line, `Line ${parsed.line} has no "${this.spec.idField}" (string or number) to use as the id.`);
          continue;
        }
        id = String(value);
      } else {
        id = String(parsed.line);
      }
      doc.id = id;
      const existed = sink.has(id);
      await sink.upsert(doc);
      if (existed === true) run.counts.modified++;
      else if (existed === false) run.counts.created++;
      ids.push({ id, line: parsed.line });
      if (++inBatch >= this.deps.batchDocs) await checkpoint(last);
    }
    await checkpoint(last);
    run.record.progress.done = size;
  }

  /** JSON lines with their numbers and byte offsets; a line longer than the limit is reported, not held. */
  private async *jsonl(from: FilePosition): AsyncGenerator<Parsed & { columns?: undefined }> {
    let offset = from.offset;
    let line = from.line;
    let carry: Buffer[] = [];
    let carryBytes = 0;
    let tooLong = false;
    const limit = this.deps.maxLineBytes;
    const emit = (bytes: Buffer, end: number): Parsed | undefined => {
      line++;
      let text = bytes.toString('utf8');
      if (line === 1 && text.charCodeAt(0) === 0xfeff) text = text.slice(1);
      if (text.trim() === '') return undefined;
      try {
        const value = JSON.parse(text) as unknown;
        if (value === null || typeof value !== 'object' || Array.isArray(value))
          return { line, endLine: line, end, error: `Line ${line} is not a JSON object.` };
        return { line, endLine: line, end, record: value as Record<string, unknown> };
      } catch (err) {
        return { line, endLine: line, end, error: `Line ${line} is not valid JSON: ${(err as Error).message}` };
      }
    };
    for await (const chunk of createReadStream(this.spec.file, { start: from.offset, highWaterMark: 256 * 1024 }) as AsyncIterable<Buffer>) {
      let start = 0;
      for (let nl = chunk.indexOf(10, start); nl !== -1; nl = chunk.indexOf(10, start)) {
        const piece = chunk.subarray(start, nl);
        const end = offset + nl + 1;
        start = nl + 1;
        if (tooLong || carryBytes + piece.length > limit) {
          line++;
          yield { line, endLine: line, end, error: `Line ${line} is longer than ${limit} bytes.` };
        } else {
          const parsed = emit(carry.length ? Buffer.concat([...carry, piece]) : piece, end);
          if (parsed) yield parsed;
        }
        carry = [];
        carryBytes = 0;
        tooLong = false;
      }
      const rest = chunk.subarray(start);
      if (!tooLong) {
        if (carryBytes + rest.length > limit) {
          tooLong = true;
          carry = [];
          carryBytes = 0;
        } else if (rest.length > 0) {
          // Copied: the stream may reuse its chunk.
          carry.push(Buffer.from(rest));
          carryBytes += rest.length;
        }
      }
      offset += chunk.length;
    }
    if (tooLong) {
      line++;
      yield { line, endLine: line, end: offset, error: `Line ${line} is longer than ${limit} bytes.` };
    } else if (carryBytes > 0) {
      const parsed = emit(Buffer.concat(carry), offset);
      if (parsed) yield parsed;
    }
  }

  /** CSV records (header row, quoted fields, embedded newlines) by csv-parse, with line numbers and offsets. */
  private async *csv(from: FilePosition): AsyncGenerator<Parsed> {
    const parser = parse({
      columns: from.columns ?? true,
      bom: from.offset === 0,
      info: true,
      raw: true,
      skip_empty_lines: true,
      skip_records_with_error: true,
      max_record_size: this.deps.maxLineBytes,
    });
    const skipped: Parsed[] = [];
    parser.on('skip', (err: Error & { lines?: number }) => {
      const line = from.line + (err.lines ?? 0);
      skipped.push({ line, endLine: line, end: -1, error: `Line ${line}: ${err.message}` });
    });
    const input = createReadStream(this.spec.file, { start: from.offset, highWaterMark: 256 * 1024 });
    input.on('error', (err) => parser.destroy(err));
    input.pipe(parser);
    let lastEnd = from.offset;
    for await (const item of parser as AsyncIterable<{
      record: Record<string, string>;
      raw: string;
      info: { lines: number; bytes: number; columns?: Array<{ name: string } | string> };
    }>) {
      while (skipped.length > 0) yield { ...skipped.shift()!, end: lastEnd };
      const body = item.raw.replace(/^(\r?\n)+/, '').replace(/\r?\n$/, '');
      const newlines = body.match(/\n/g)?.length ?? 0;
      const line = from.line + item.info.lines - newlines;
      lastEnd = from.offset + item.info.bytes;
      const columns = from.columns ?? (item.info.columns ?? []).map((c) => (typeof c === 'string' ? c : c.name));
      this.columns = columns;
      yield { line, endLine: from.line + item.info.lines, end: lastEnd, record: { ...item.record } };
    }
    while (skipped.length > 0) yield { ...skipped.shift()!, end: lastEnd };
  }

  /** The CSV header, once read: stored with the position so a resumed scan parses the rest the same way. */
  columns: string[] | undefined;
}
