/** One row of seed 002's model-tier table: the catalogue's ten tiers ship as this data. */
export interface TierInfo {
  tier: number;
  category: string;
  /** Reference prompt price of the tier, USD per million tokens. */
  promptPer1M: number;
  /** Approximate latency of the tier's models, milliseconds. */
  latencyMs: number;
}

export const tiers: readonly TierInfo[] = [
  { tier: 1, category: 'Micro and syntax guard', promptPer1M: 0.0375, latencyMs: 65 },
  { tier: 2, category: 'Ultra-cheap fast remediator', promptPer1M: 0.14, latencyMs: 85 },
  { tier: 3, category: 'Economical code specialist', promptPer1M: 0.15, latencyMs: 110 },
  { tier: 4, category: 'Mid-tier generalist', promptPer1M: 0.8, latencyMs: 145 },
  { tier: 5, category: 'Fast structured reasoner', promptPer1M: 1.1, latencyMs: 180 },
  { tier: 6, category: 'Core engineering workhorse', promptPer1M: 2.5, latencyMs: 210 },
  { tier: 7, category: 'Deep concurrency reasoner', promptPer1M: 4.8, latencyMs: 290 },
  { tier: 8, category: 'Senior architect', promptPer1M: 9, latencyMs: 350 },
  { tier: 9, category: 'Frontier cognitive synthesis', promptPer1M: 18, latencyMs: 480 },
  { tier: 10, category: 'Elite multi-model consensus', promptPer1M: 45, latencyMs: 850 },
];

export const maxTier = tiers.length;

export function tierInfo(tier: number): TierInfo | undefined {
  return tiers[tier - 1];
}

/**
 * The tier a synced model lands in, from its prompt price: the tier whose reference price is
 * nearest on a logarithmic scale (the band edges are the geometric means of neighbouring tiers'
 * prices). A free model (price 0, a local server) is tier 1; a price above tier 10's band is tier 10.
 */
export function tierForPrice(promptPer1M: number): number {
  if (!(promptPer1M > 0)) return 1;
  for (let i = 0; i < tiers.length - 1; i++) {
    const edge = Math.sqrt(tiers[i]!.promptPer1M * tiers[i + 1]!.promptPer1M);
    if (promptPer1M < edge) return tiers[i]!.tier;
  }
  return maxTier;
}

/** Task classes a call may name instead of a tier (documented in docs/agent-api.md). */
export const taskClasses: Readonly<Record<string, number>> = {
  'syntax-check': 1,
  lint: 1,
  'quick-fix': 2,
  triage: 3,
  'code-fix': 3,
  general: 4,
  'structured-output': 5,
  'code-review': 6,
  'multi-file-patch': 6,
  concurrency: 7,
  architecture: 8,
  'security-audit': 8,
  'frontier-research': 9,
  consensus: 10,
};
