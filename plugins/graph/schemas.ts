/**
 * Request shapes of the graph endpoints: seed 000's GraphEntity and GraphTriple, and the search
 * body. A bad item is 400 `validation_failed` whose `details.issues` paths name its position
 * (`entities.3.name`).
 */
import { z } from 'tessera-runtime/plugin';

const id = z.string().trim().min(1).max(512);
const label = z.string().trim().min(1).max(1024);

export const graphEntitySchema = z.strictObject({
  id,
  name: label,
  type: z.string().trim().min(1).max(128),
  aliases: z.array(label).max(256).optional(),
  properties: z.record(z.string(), z.unknown()).optional(),
  docIds: z.array(z.string().min(1).max(512)).max(10_000).optional(),
});
export type GraphEntity = z.output<typeof graphEntitySchema>;

export const graphTripleSchema = z.strictObject({
  subject: id,
  predicate: z.string().trim().min(1).max(256),
  object: id,
  /** JSON cannot write NaN, but 1e999 parses to Infinity. */
  weight: z.number().finite().min(0).default(1),
});
export type GraphTriple = z.output<typeof graphTripleSchema>;

/** Items per write request; more are 400 (write in batches). */
export const maxBatch = 50_000;

export const entitiesBodySchema = z.strictObject({ entities: z.array(graphEntitySchema).min(1).max(maxBatch) });
export const triplesBodySchema = z.strictObject({ triples: z.array(graphTripleSchema).min(1).max(maxBatch) });
export const tripleKeysBodySchema = z.strictObject({
  triples: z
    .array(z.strictObject({ subject: id, predicate: z.string().trim().min(1).max(256), object: id }))
    .min(1)
    .max(maxBatch),
});

export const maxHopsLimit = 5;

export const graphSearchSchema = z.strictObject({
  query: z.string().trim().min(1).max(1024),
  maxHops: z.number().int().min(0).max(maxHopsLimit).default(1),
  types: z.array(z.string().min(1).max(128)).max(100).optional(),
  limit: z.number().int().min(1).max(1000).default(10),
});
export type GraphSearchInput = z.output<typeof graphSearchSchema>;
