import { mediaType, NotFoundError, type PluginContext, type RouteRequest } from 'tessera-runtime/plugin';
import { LineTooLongError } from '../bulk/index.js';
import { canSeeIndex, type ImageMetadataService, type SearchService } from '../search/index.js';
import { errors } from './errors.js';
import { csvItems, formatOf, jsonItems, ndjsonItems, StreamBroken, type Format, type Item } from './ingest-formats.js';
import { analyseImage, imageBodyTypes, imageDocument, imageFailure, imageTypeOf, readImage, unsupportedImage } from './ingest-images.js';
import { eachFile } from './ingest-multipart.js';
import { IngestBatch, IngestResult, type FileSummary } from './ingest-result.js';
import type { ConsoleOptions } from './options.js';

const accepted = [
  'multipart/form-data',
  'application/json',
  'application/x-ndjson',
  'application/ndjson',
  'application/jsonl',
  'text/csv',
  'application/csv',
  'application/octet-stream',
  ...imageBodyTypes,
];

function items(format: Format, body: AsyncIterable<Uint8Array>, options: ConsoleOptions, mappings: Record<string, { type: string }>): AsyncGenerator<Item> {
  if (format === 'ndjson') return ndjsonItems(body, options.maxItemBytes);
  if (format === 'csv') return csvItems(body, options.maxItemBytes, mappings);
  return jsonItems(body, options.maxItemBytes);
}

function unsupported(what: string) {
  return errors.ingest_format_unsupported({
    reason: `${what} is not JSON, NDJSON, CSV or an image: give a content type (application/json, application/x-ndjson, text/csv, image/png, ...), a file name ending .json, .ndjson, .jsonl, .csv, .png, .jpg, .gif or .bmp, or ?format=json|ndjson|csv|image.`,
  });
}

/**
 * `POST /v1/ingest/{index}`: files rather than JSON bodies. A multipart upload (any number of
 * files) or a raw body of JSON, NDJSON, CSV or an image, streamed into the index through the
 * search service in batches; per-item results like bulk. Each image becomes a document with the
 * search plugin's image metadata (`ImageMetadataService`).
 */
export function registerIngestRoutes(ctx: PluginContext<ConsoleOptions>, search: SearchService, images: ImageMetadataService): void {
  ctx.routes.add({
    method: 'POST',
    path: '/v1/ingest/:index',
    permission: 'search:write',
    throttle: 'heavy',
    accepts: accepted,
    bodyLimit: Number.MAX_SAFE_INTEGER,
    summary: 'Ingest files (multipart) or a raw JSON, NDJSON, CSV or image body into an index, streamed in batches, with per-item results',
    tags: ['console'],
    async handler(request: RouteRequest<unknown, unknown>) {
      const started = performance.now();
      const index = request.params.index!;
      const info = canSeeIndex(request.principal, index) ? search.get(request.tenant, index) : undefined;
      if (info === undefined) throw new NotFoundError('index_not_found', `Index "${index}" does not exist.`, { details: { index } });
      const query = request.query as Record<string, string>;
      const forced = query.format;
      if (forced !== undefined && !['json', 'ndjson', 'csv', 'image'].includes(forced)) throw unsupported(`format "${forced}"`);
      const result = new IngestResult(ctx.config.maxErrors);
      const batch = new IngestBatch(search, request.tenant, index, ctx.config.batchDocs, result);
      const took = (): number => Math.round(performance.now() - started);
      const maxImageBytes = Math.min(ctx.config.maxImageBytes ?? images.maxBytes, images.maxBytes);
      let imageCount = 0;

      /** One image, read whole (at most maxImageBytes kept), analysed, and added to the batch as one document. */
      const ingestImage = async (type: string, name: string | null, body: AsyncIterable<Uint8Array>, size?: number): Promise<void> => {
        const summary = result.file(name, 'image');
        summary.items = 1;
        const ref = { file: name, item: 1 };
        const fail = (e: { code: string; message: string }): void => result.fail(summary, { ...ref, ...e });
        const refused = unsupportedImage(type, images);
        if (refused !== undefined) return fail({ code: 'ingest_format_unsupported', message: refused });
        if (++imageCount > ctx.config.maxImages) {
          return fail({ code: 'too_many_images', message: `Only the first ${ctx.config.maxImages} images of a request are read (maxImages).` });
        }
        const read = size !== undefined && size > maxImageBytes ? { tooLarge: size } : await readImage(body, maxImageBytes, name !== null);
        if ('tooLarge' in read) {
          const e = images.tooLarge(read.tooLarge, maxImageBytes);
          if (name === null) throw e;
          return fail({ code: e.code, message: e.message });
        }
        try {
          const analysed = await analyseImage(images, read.bytes, request.signal);
          const id = name ?? query.id ?? analysed.metadata.image.sha256;
          summary.id = id;
          const declared = type.startsWith('image/') ? type : `image/${analysed.metadata.image.format}`;
          await batch.add(imageDocument(id, { name, type: declared }, analysed, images), ref, summary);
        } catch (err) {
          const failure = imageFailure(err);
          if (failure.code === 'internal_error') ctx.log.error({ err, index, file: name }, 'image ingestion failed');
          fail(failure);
        }
      };

      const ingest = async (format: Format, name: string | null, body: AsyncIterable<Uint8Array>): Promise<void> => {
        const summary = result.file(name, format);
        try {
          for await (const item of items(format, body, ctx.config, info.mappings)) {
            summary.items++;
            const ref = { file: name, item: item.item, ...(item.line !== undefined ? { line: item.line } : {}) };
            if (item.error) result.fail(summary, { ...ref, ...item.error });
            else await batch.add(item.doc, ref, summary);
          }
        } catch (err) {
          throw broken(err, summary);
        }
      };

      const type = mediaType(request.headers);
      if (type === 'multipart/form-data') {
        await eachFile(
          request.headers.get('content-type')!,
          request.stream(),
          async (file) => {
            const format = (forced as Format | 'image' | undefined) ?? formatOf(file.mimeType, file.filename);
            if (format === undefined) {
              const summary = result.file(file.filename, 'unknown');
              const e = unsupported(`File "${file.filename}" (${file.mimeType})`);
              result.fail(summary, { file: file.filename, item: 0, code: e.code, message: e.message });
              return;
            }
            if (format === 'image') return ingestImage(imageTypeOf(file.mimeType, file.filename), file.filename, file.stream);
            try {
              await ingest(format, file.filename, file.stream);
            } catch (err) {
              // One broken file does not stop the others: it is reported where it broke.
              if (!(err instanceof Broken)) throw err;
              result.fail(err.summary, { file: file.filename, item: err.summary.items + 1, code: err.code, message: err.message });
            }
          },
          { files: ctx.config.maxFiles },
        );
      } else {
        const format = (forced as Format | 'image' | undefined) ?? formatOf(type);
        if (format === undefined) throw unsupported(`Content-Type "${type}"`);
        if (format === 'image') {
          const imageType = imageTypeOf(type, null);
          const refused = unsupportedImage(imageType, images);
          if (refused !== undefined) throw errors.ingest_format_unsupported({ reason: refused });
          const length = Number(request.headers.get('content-length') ?? NaN);
          await ingestImage(imageType, null, request.stream(), Number.isFinite(length) ? length : undefined);
          await batch.flush();
          return result.toJSON(took());
        }
        try {
          await ingest(format, null, request.stream());
        } catch (err) {
          if (!(err instanceof Broken)) throw err;
          await batch.flush();
          const answer = result.toJSON(took());
          const details = { ...answer, ok: undefined, brokenAt: err.summary.items + 1 };
          if (err.code === 'ingest_csv_invalid') throw errors.ingest_csv_invalid({ file: 'body', reason: err.reason }, { details });
          if (err.code === 'ingest_json_invalid') throw errors.ingest_json_invalid({ file: 'body', reason: err.reason }, { details });
          throw new LineTooLongError(err.summary.items + 1, ctx.config.maxItemBytes, details);
        }
      }
      await batch.flush();
      return result.toJSON(took());
    },
  });
}

/** A stream that cannot be read on, with the file it happened in. */
class Broken extends Error {
  constructor(
    readonly code: string,
    readonly reason: string,
    readonly summary: FileSummary,
  ) {
    super(reason);
  }
}

function broken(err: unknown, summary: FileSummary): unknown {
  if (err instanceof StreamBroken) {
    const code = err.format === 'csv' ? 'ingest_csv_invalid' : 'ingest_json_invalid';
    return new Broken(code, err.message, summary);
  }
  if (err instanceof LineTooLongError) return new Broken('line_too_long', err.message, summary);
  return err;
}
