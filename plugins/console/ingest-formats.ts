import { Readable } from 'node:stream';
import { parse } from 'csv-parse';
import { lines } from '../bulk/index.js';

/** One item read from an upload: a document, or the reason it could not be read. */
export interface Item {
  item: number;
  line?: number;
  doc?: unknown;
  error?: { code: string; message: string };
}

export type Format = 'json' | 'ndjson' | 'csv';

/** Thrown when a stream cannot be read on: the items before it stand. */
export class StreamBroken extends Error {
  constructor(
    readonly format: Format,
    message: string,
  ) {
    super(message);
  }
}

/** One JSON document per line; blank lines are skipped, a bad line fails alone. */
export async function* ndjsonItems(chunks: AsyncIterable<Uint8Array>, maxItemBytes: number): AsyncGenerator<Item> {
  let item = 0;
  for await (const line of lines(chunks, maxItemBytes)) {
    if (line.invalidUtf8 !== undefined) {
      yield { item: ++item, line: line.number, error: { code: 'invalid_utf8', message: `Line ${line.number} is not valid UTF-8.` } };
      continue;
    }
    if (line.text.trim() === '') continue;
    item++;
    try {
      yield { item, line: line.number, doc: JSON.parse(line.text) };
    } catch (err) {
      yield { item, line: line.number, error: { code: 'invalid_json', message: `Line ${line.number} is not valid JSON: ${(err as Error).message}` } };
    }
  }
}

const ws = (c: number): boolean => c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09;

/**
 * A JSON array of documents, cut into its elements as the bytes arrive (only one element is held
 * at a time), or a single document. Each element is parsed on its own, so a malformed one fails
 * alone; a break in the array itself ends the stream.
 */
export async function* jsonItems(chunks: AsyncIterable<Uint8Array>, maxItemBytes: number): AsyncGenerator<Item> {
  let mode: 'start' | 'array' | 'single' | 'done' = 'start';
  let collecting = false;
  let afterValue = false;
  let depth = 0;
  let inString = false;
  let escaped = false;
  /** The element is a whole object, array or string: only "," or "]" may follow. */
  let complete = false;
  let pieces: Buffer[] = [];
  let size = 0;
  let count = 0;
  const element = (text: string): Item => {
    count++;
    try {
      return { item: count, doc: JSON.parse(text) };
    } catch (err) {
      return { item: count, error: { code: 'invalid_json', message: `Item ${count} is not valid JSON: ${(err as Error).message}` } };
    }
  };
  const tooLarge = (): StreamBroken => new StreamBroken('json', `item ${count + 1} is larger than ${maxItemBytes} bytes.`);
  for await (const chunk of chunks) {
    const b = Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength);
    let from = 0;
    for (let i = 0; i < b.length; i++) {
      const c = b[i]!;
      if (mode === 'start') {
        if (ws(c) || (c === 0xef && i === 0) || c === 0xbb || c === 0xbf) continue;
        if (c === 0x5b) mode = 'array';
        else if (c === 0x7b) {
          mode = 'single';
          from = i;
        } else throw new StreamBroken('json', 'expected an array of documents ([...]) or one document ({...}).');
        continue;
      }
      if (mode === 'single') continue;
      if (mode === 'done') {
        if (!ws(c)) throw new StreamBroken('json', `unexpected data after the closing "]" of the array (after item ${count}).`);
        continue;
      }
      if (!collecting) {
        if (ws(c)) continue;
        if (c === 0x2c && afterValue) {
          afterValue = false;
          continue;
        }
        if (c === 0x5d && (afterValue || count === 0)) {
          mode = 'done';
          continue;
        }
        if (afterValue || c === 0x2c || c === 0x5d) throw new StreamBroken('json', `expected "," or "]" after item ${count}.`);
        collecting = true;
        from = i;
      }
      if (inString) {
        if (escaped) escaped = false;
        else if (c === 0x5c) escaped = true;
        else if (c === 0x22) {
          inString = false;
          complete = depth === 0;
        }
        continue;
      }
      if (complete && !ws(c) && c !== 0x2c && c !== 0x5d) {
        // The element before the break is whole: it stands, like the ones before it.
        yield element(Buffer.concat([...pieces, b.subarray(from, i)]).toString('utf8'));
        throw new StreamBroken('json', `expected "," or "]" after item ${count}.`);
      }
      if (c === 0x22) inString = true;
      else if (c === 0x7b || c === 0x5b) depth++;
      else if ((c === 0x7d || c === 0x5d) && depth > 0) {
        depth--;
        complete = depth === 0;
      } else if (depth === 0 && (c === 0x2c || c === 0x5d || c === 0x7d)) {
        if (c === 0x7d) throw new StreamBroken('json', `unbalanced "}" in item ${count + 1}.`);
        const text = Buffer.concat([...pieces, b.subarray(from, i)]).toString('utf8');
        if (size + i - from > maxItemBytes) throw tooLarge();
        pieces = [];
        size = 0;
        collecting = false;
        complete = false;
        afterValue = c === 0x2c ? false : true;
        if (c === 0x5d) mode = 'done';
        yield element(text);
      }
    }
    if ((collecting && mode === 'array') || mode === 'single') {
      // A copy: the stream may reuse the chunk's memory once the next one is read.
      pieces.push(Buffer.from(b.subarray(from)));
      size += b.length - from;
      if (size > maxItemBytes) throw tooLarge();
    }
  }
  if (mode === 'single') {
    yield element(Buffer.concat(pieces).toString('utf8'));
    return;
  }
  if (mode === 'start') return;
  if (mode !== 'done') throw new StreamBroken('json', `the array is not closed (after item ${count}).`);
}

type FieldType = string | undefined;

/** A CSV cell as the index's mapping types it: numbers and booleans from their text; an empty cell is absent. */
function cell(value: string, type: FieldType, column: string): unknown {
  if (value === '') return undefined;
  if (type === 'number') {
    const n = Number(value.trim());
    return Number.isFinite(n) && value.trim() !== '' ? n : value;
  }
  if (type === 'boolean') {
    const v = value.trim().toLowerCase();
    return v === 'true' ? true : v === 'false' ? false : value;
  }
  if (column === '_vector' && value.trimStart().startsWith('[')) {
    try {
      return JSON.parse(value);
    } catch {
      return value;
    }
  }
  return value;
}

/**
 * CSV with a header row: each row becomes a document keyed by the header's names, its cells typed
 * by the index's mappings (`number`, `boolean`; a `_vector` column holds a JSON array). A row with
 * the wrong number of cells fails alone; a break in the CSV itself (an unclosed quote) ends the stream.
 */
export async function* csvItems(chunks: AsyncIterable<Uint8Array>, maxItemBytes: number, types: Record<string, { type: string }>): AsyncGenerator<Item> {
  const parser = Readable.from(chunks).pipe(parse({ bom: true, relax_column_count: true, skip_empty_lines: true, max_record_size: maxItemBytes, info: true }));
  let header: string[] | undefined;
  let count = 0;
  try {
    for await (const { record, info } of parser as AsyncIterable<{ record: string[]; info: { lines: number } }>) {
      if (header === undefined) {
        header = record.map((h) => h.trim());
        const seen = new Set<string>();
        for (const h of header) {
          if (h === '') throw new StreamBroken('csv', 'the header row has an empty column name.');
          if (seen.has(h)) throw new StreamBroken('csv', `the header row names "${h}" twice.`);
          seen.add(h);
        }
        continue;
      }
      count++;
      if (record.length !== header.length) {
        yield {
          item: count,
          line: info.lines,
          error: { code: 'csv_row_invalid', message: `Row ${count} (line ${info.lines}) has ${record.length} cells; the header has ${header.length}.` },
        };
        continue;
      }
      const doc: Record<string, unknown> = {};
      header.forEach((name, i) => {
        const value = cell(record[i]!, types[name]?.type, name);
        if (value !== undefined) doc[name] = value;
      });
      yield { item: count, line: info.lines, doc };
    }
  } catch (err) {
    if (err instanceof StreamBroken) throw err;
    const code = (err as { code?: string }).code;
    if (typeof code === 'string' && code.startsWith('CSV_')) throw new StreamBroken('csv', `${(err as Error).message} (after row ${count}).`);
    throw err;
  }
}

/** The format of a body or file: `?format=` first, then its media type, then its file name's extension. */
export function formatOf(mediaType: string, filename?: string): Format | 'image' | undefined {
  const type = mediaType.toLowerCase();
  if (type === 'application/x-ndjson' || type === 'application/ndjson' || type === 'application/jsonl' || type === 'application/jsonlines') return 'ndjson';
  if (type === 'application/json' || type.endsWith('+json')) return 'json';
  if (type === 'text/csv' || type === 'application/csv') return 'csv';
  if (type.startsWith('image/')) return 'image';
  const ext = filename?.toLowerCase().match(/\.([a-z0-9]+)$/)?.[1];
  if (ext === 'ndjson' || ext === 'jsonl') return 'ndjson';
  if (ext === 'json') return 'json';
  if (ext === 'csv') return 'csv';
  if (ext && ['png', 'jpg', 'jpeg', 'gif', 'webp', 'bmp', 'tif', 'tiff'].includes(ext)) return 'image';
  return undefined;
}
