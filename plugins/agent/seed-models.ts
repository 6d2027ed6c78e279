import { tiers } from './tiers.js';

/** A model of the catalogue, as `GET /api/v1/models/catalog` shows it. */
export interface CatalogModel {
  id: string;
  name: string;
  /** The vendor: the part of the id before `/` (`openai/gpt-4o-mini` → `openai`), else `custom`. */
  provider: string;
  tier: number;
  category: string;
  contextLength: number;
  pricing: { promptPer1M: number; completionPer1M: number };
  latencyMs: number;
  benchmarks: Record<string, number>;
  custom: boolean;
  /** `seed` (shipped), `sync` (from the routing provider) or `custom` (added through the API). */
  source: 'seed' | 'sync' | 'custom';
  updatedAt: string;
}

/** Two models per tier, so routing can rotate before the first sync. */
const seedIds: ReadonlyArray<readonly [number, string, string, number]> = [
  [1, 'meta-llama/llama-3.2-1b-instruct', 'Llama 3.2 1B Instruct', 131_072],
  [1, 'google/gemma-3-4b-it', 'Gemma 3 4B', 131_072],
  [2, 'mistralai/ministral-8b', 'Ministral 8B', 128_000],
  [2, 'qwen/qwen-2.5-coder-7b-instruct', 'Qwen2.5 Coder 7B Instruct', 32_768],
  [3, 'qwen/qwen-2.5-coder-32b-instruct', 'Qwen2.5 Coder 32B Instruct', 32_768],
  [3, 'deepseek/deepseek-chat', 'DeepSeek V3', 163_840],
  [4, 'mistralai/codestral-2501', 'Codestral', 262_144],
  [4, 'meta-llama/llama-3.3-70b-instruct', 'Llama 3.3 70B Instruct', 131_072],
  [5, 'openai/o4-mini', 'o4 Mini', 200_000],
  [5, 'google/gemini-2.5-flash', 'Gemini 2.5 Flash', 1_048_576],
  [6, 'openai/gpt-4.1', 'GPT-4.1', 1_047_576],
  [6, 'google/gemini-2.5-pro', 'Gemini 2.5 Pro', 1_048_576],
  [7, 'anthropic/claude-sonnet-4', 'Claude Sonnet 4', 200_000],
  [7, 'openai/o3', 'o3', 200_000],
  [8, 'anthropic/claude-opus-4', 'Claude Opus 4', 200_000],
  [8, 'x-ai/grok-4', 'Grok 4', 256_000],
  [9, 'openai/gpt-4.5-preview', 'GPT-4.5 Preview', 128_000],
  [9, 'anthropic/claude-opus-4.1', 'Claude Opus 4.1', 200_000],
  [10, 'openai/o1-pro', 'o1-pro', 200_000],
  [10, 'openai/o3-pro', 'o3 Pro', 200_000],
];

export function providerOf(id: string): string {
  const slash = id.indexOf('/');
  return slash > 0 ? id.slice(0, slash) : 'custom';
}

/**
 * The shipped seed set: each model priced at its tier's reference prompt price (completion four
 * times that) and latency until a sync brings the provider's own figures. No benchmark scores are
 * shipped; custom entries may carry them.
 */
export const seedModels: readonly CatalogModel[] = seedIds.map(([tier, id, name, contextLength]) => {
  const info = tiers[tier - 1]!;
  return {
    id,
    name,
    provider: providerOf(id),
    tier,
    category: info.category,
    contextLength,
    pricing: { promptPer1M: info.promptPer1M, completionPer1M: info.promptPer1M * 4 },
    latencyMs: info.latencyMs,
    benchmarks: {},
    custom: false,
    source: 'seed',
    updatedAt: '2026-11-26T00:00:00.000Z',
  };
});
