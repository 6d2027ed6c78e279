import { z } from 'zod';
import { definePlugin, NotFoundError } from 'tessera-runtime/plugin';
import { canSeeIndex, SEARCH_SERVICE } from '../search/index.js';
import { BulkResult } from './bulk-result.js';
import { BulkWriter } from './bulk-writer.js';
import type { Line } from './lines.js';
import { runBulkStream } from './stream.js';

const optionsSchema = z.strictObject({
  /** Documents applied per batch (one segment each). @default 2000 */
  batchDocs: z.number().int().min(1).max(100_000).default(2000),
  /** Longest accepted line, in bytes. @default 16777216 */
  maxLineBytes: z
    .number()
    .int()
    .min(1024)
    .default(16 * 1024 * 1024),
  /** Failures listed in the answer (all are counted). @default 1000 */
  maxErrors: z.number().int().min(0).default(1000),
});

const actionSchema = z.union([
  z.strictObject({ index: z.strictObject({ _index: z.string().optional(), _id: z.union([z.string(), z.number()]).optional() }) }),
  z.strictObject({ create: z.strictObject({ _index: z.string().optional(), _id: z.union([z.string(), z.number()]).optional() }) }),
  z.strictObject({ delete: z.strictObject({ _index: z.string().optional(), _id: z.union([z.string(), z.number()]) }) }),
]);

/**
 * The bulk indexer (seed 000's port 3852): NDJSON streams of any size, applied in batches while
 * they arrive. Nothing holds the whole body; memory is one batch and one line.
 */
export default definePlugin({
  name: 'bulk',
  version: '0.1.0',
  dependsOn: [{ name: 'search', version: '^0.1.0' }],
  options: optionsSchema,
  errorCodes: [
    {
      code: 'line_too_long',
      status: 400,
      when: 'A bulk line is longer than `maxLineBytes`; the stream stops there. The lines before it are applied, and `details` carries their results (`linesRead`, `indexed`, `deleted`, `failed`, `errors`).',
    },
    { code: 'document_exists', status: 409, when: 'Per line, in `errors[]`: a `create` action names an id that already exists.' },
    {
      code: 'invalid_action',
      status: 400,
      when: 'Per line, in `errors[]`: a `/v1/bulk` action line is not `{"index"|"create"|"delete": {...}}`, names no index, or is followed by no document.',
    },
  ],
  setup(ctx) {
    const search = ctx.container.resolve(SEARCH_SERVICE);
    const unbounded = Number.MAX_SAFE_INTEGER;

    ctx.routes.add({
      method: 'POST',
      path: '/v1/bulk',
      permission: 'search:write',
      throttle: 'heavy',
      accepts: ['application/x-ndjson', 'application/json'],
      bodyLimit: unbounded,
      summary: 'Elasticsearch-style _bulk: action lines ({"index"|"create"|"delete": {"_index", "_id"}}) each followed by its document',
      tags: ['bulk'],
      async handler(request) {
        const started = performance.now();
        const result = new BulkResult(ctx.config.maxErrors);
        const writer = new BulkWriter(search, request.tenant, result, ctx.config.batchDocs, (index) => canSeeIndex(request.principal, index));
        const defaultIndex =
          typeof request.query === 'object' && request.query && 'index' in request.query ? String((request.query as { index: unknown }).index) : undefined;
        let pending: { index: string; id?: string; line: number; create: boolean; skip?: boolean } | undefined;
        let lastLine = 0;
        const onLine = async (line: Line): Promise<void> => {
          lastLine = line.number;
          if (line.invalidUtf8 !== undefined) {
            result.fail({ line: line.number, code: 'invalid_utf8', message: invalidUtf8Message(line) });
            // Like a broken JSON line: it is neither an action nor a document.
            pending = undefined;
            return;
          }
          if (line.text.trim() === '') return;
          let parsed: unknown;
          try {
            parsed = JSON.parse(line.text);
          } catch (err) {
            result.fail({ line: line.number, code: 'invalid_json', message: `Line ${line.number} is not valid JSON: ${(err as Error).message}` });
            // A broken document line must not be read as the next action.
            pending = undefined;
            return;
          }
          if (pending?.skip) {
            // The document of an action already reported as invalid: one failure per pair.
            pending = undefined;
            return;
          }
          if (pending) {
            const doc =
              parsed && typeof parsed === 'object' && !Array.isArray(parsed) && pending.id !== undefined ? { ...(parsed as object), id: pending.id } : parsed;
            const docId = pending.id ?? idOf(doc);
            if (
              pending.create &&
              docId !== undefined &&
              (writer.isPending(pending.index, docId) ||
                (canSeeIndex(request.principal, pending.index) && search.getDocument(request.tenant, pending.index, docId)))
            ) {
              result.fail({
                line: line.number,
                index: pending.index,
                id: docId,
                code: 'document_exists',
                message: `Document "${docId}" already exists in "${pending.index}" (create does not overwrite).`,
              });
            } else {
              await writer.add(pending.index, line.number, doc);
            }
            pending = undefined;
            return;
          }
          const action = actionSchema.safeParse(parsed);
          if (!action.success) {
            result.fail({
              line: line.number,
              code: 'invalid_action',
              message: `Line ${line.number}: expected an action line such as {"index":{"_index":"books","_id":"1"}}.`,
            });
            return;
          }
          const [kind, meta] = Object.entries(action.data)[0] as ['index' | 'create' | 'delete', { _index?: string; _id?: string | number }];
          const index = meta._index ?? defaultIndex;
          if (!index) {
            result.fail({
              line: line.number,
              code: 'invalid_action',
              message: `Line ${line.number}: the action names no "_index" and the request has no ?index=.`,
            });
            if (kind !== 'delete') pending = { index: '', line: line.number, create: false, skip: true };
            return;
          }
          const id = meta._id === undefined ? undefined : String(meta._id);
          if (kind === 'delete') await writer.remove(index, line.number, id!);
          else pending = { index, ...(id !== undefined ? { id } : {}), line: line.number, create: kind === 'create' };
        };
        // An action line still waiting for its document is not settled.
        const settled = (): number => (pending && !pending.skip ? pending.line - 1 : lastLine);
        const answer = await runBulkStream(request, ctx.config.maxLineBytes, result, writer, onLine, settled, started);
        if (pending && !pending.skip) {
          result.fail({
            line: pending.line,
            index: pending.index,
            code: 'invalid_action',
            message: `Line ${pending.line}: the action is not followed by a document.`,
          });
          return result.toJSON(Math.round(performance.now() - started));
        }
        return answer;
      },
    });

    ctx.routes.add({
      method: 'POST',
      path: '/v1/indexes/:name/bulk',
      permission: 'search:write',
      throttle: 'heavy',
      accepts: ['application/x-ndjson', 'application/json'],
      bodyLimit: unbounded,
      summary: 'A plain NDJSON stream of documents for one index, upserted by id in batches',
      tags: ['bulk'],
      async handler(request) {
        const started = performance.now();
        const index = request.params.name!;
        if (!canSeeIndex(request.principal, index) || search.get(request.tenant, index) === undefined)
          throw new NotFoundError('index_not_found', `Index "${index}" does not exist.`, { details: { index } });
        const result = new BulkResult(ctx.config.maxErrors);
        const writer = new BulkWriter(search, request.tenant, result, ctx.config.batchDocs, (index) => canSeeIndex(request.principal, index));
        let lastLine = 0;
        const onLine = async (line: Line): Promise<void> => {
          lastLine = line.number;
          if (line.invalidUtf8 !== undefined) {
            result.fail({ line: line.number, index, code: 'invalid_utf8', message: invalidUtf8Message(line) });
            return;
          }
          if (line.text.trim() === '') return;
          let doc: unknown;
          try {
            doc = JSON.parse(line.text);
          } catch (err) {
            result.fail({ line: line.number, index, code: 'invalid_json', message: `Line ${line.number} is not valid JSON: ${(err as Error).message}` });
            return;
          }
          await writer.add(index, line.number, doc);
        };
        return runBulkStream(request, ctx.config.maxLineBytes, result, writer, onLine, () => lastLine, started);
      },
    });
  },
});

function invalidUtf8Message(line: Line): string {
  return `Line ${line.number} is not valid UTF-8 (first bad byte at offset ${line.invalidUtf8} of the line); it was skipped.`;
}

function idOf(doc: unknown): string | undefined {
  const id = (doc as { id?: unknown } | null)?.id;
  return typeof id === 'string' || typeof id === 'number' ? String(id) : undefined;
}

/** The byte-stream line splitter (bounded memory, per-line UTF-8 checks) other ingestion paths reuse. */
export { lines, LineTooLongError, type Line } from './lines.js';
