import type { ChatResult } from './llm-provider.js';

/** What identifies a cacheable call: its model class (tier), its parameters and its prompt. */
export interface CacheKey {
  tier: number;
  /** Hash of the parameters that change an answer (temperature, top_p, max_tokens, stop, tools...). */
  paramsKey: string;
  /** The normalised prompt: messages joined by role, whitespace collapsed, lower-cased. */
  prompt: string;
  /** Hash of all three: the exact layer's key. */
  exactKey: string;
}

export interface CachedAnswer {
  modelId: string;
  result: ChatResult;
  /** The similarity of the prompt that matched (1 for an exact hit). */
  similarity: number;
}

/** The semantic cache as the gateway and the catalogue see it. */
export interface SemanticCacheLike {
  lookup(tenant: string, key: CacheKey): Promise<{ kind: 'exact' | 'semantic'; answer: CachedAnswer } | undefined>;
  /** Stores an answer in the background: lookups from then on see it (they wait for pending writes). */
  put(tenant: string, key: CacheKey, modelId: string, result: ChatResult): void;
  /** Counts a hit and what it saved, or a miss (persisted in the background). */
  record(tenant: string, outcome: { kind: 'exact' | 'semantic' | 'miss'; tokens?: number; dollars?: number }): void;
  purgeModel(tenant: string, modelId: string): Promise<number>;
}
