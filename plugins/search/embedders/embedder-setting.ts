import { z } from 'zod';
import { CORPUS_LSA_V1 } from './corpus-lsa.js';
import { HASHED_EMBEDDER } from './hashed-embedder.js';
import { HASHED_NGRAMS_V2 } from './hashed-ngrams-v2.js';

/**
 * The embedder an index names in `settings.embedder`: the built-in one (with its model), the name of
 * a remote embedder the manifest defines, or the inline form older indexes hold.
 */

/** Names of the manifest's remote embedders; `builtin` names the built-in one. */
export const EMBEDDER_NAME = /^[a-z0-9][a-z0-9_-]{0,63}$/;

export const builtinModels = [HASHED_EMBEDDER, HASHED_NGRAMS_V2, CORPUS_LSA_V1] as const;
export type BuiltinModel = (typeof builtinModels)[number];
/** What a new index, or a PATCH to `{type: "builtin"}`, gets: the one that learns the corpus (corpus-lsa.ts). */
export const LATEST_BUILTIN_MODEL: BuiltinModel = CORPUS_LSA_V1;

/**
 * Which embedder autoEmbed uses: the built-in one, or the name of a remote embedder the operator
 * defined in the manifest (`plugins.search.options.embedders`). The inline `openai` form is what
 * indexes stored before names were introduced hold; create and PATCH refuse it (embedder_not_allowed).
 */
export const embedderSettingSchema = z.union([
  z.string().regex(EMBEDDER_NAME, 'an embedder name is 1-64 of a-z, 0-9, _ and -, starting with a letter or digit'),
  z.strictObject({
    type: z.literal('builtin'),
    /**
     * Create and PATCH write `LATEST_BUILTIN_MODEL` when it is left out; a stored setting
     * without it predates the versions and means `hashed-ngrams-v1`.
     */
    model: z.enum(builtinModels).optional(),
  }),
  z.strictObject({
    type: z.literal('openai'),
    /** Base URL up to the version, e.g. "https://api.openai.com/v1"; `/embeddings` is appended. */
    baseUrl: z.string().url(),
    model: z.string().min(1),
    /** Environment variable holding the API key (the key itself is never stored). */
    apiKeyEnv: z
      .string()
      .regex(/^[A-Za-z_][A-Za-z0-9_]*$/)
      .optional(),
    batchSize: z.number().int().min(1).max(2048).default(64),
  }),
]);
export type EmbedderSetting = z.output<typeof embedderSettingSchema>;

/** The settings an embedder is chosen from (a subset of an index's settings). */
export interface EmbeddingSettings {
  autoEmbed: boolean;
  vectorDimensions?: number | undefined;
  embedder: EmbedderSetting;
}
