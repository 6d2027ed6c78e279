import type { StoreNamespace } from 'tessera-runtime/plugin';

export const engagementModes = ['minimal', 'balanced', 'thorough'] as const;
export type EngagementMode = (typeof engagementModes)[number];

/** The most output tokens a budget may allow. */
export const maxOutputTokensCeiling = 32_768;
export const defaultBudget: TokenBudget = { maxOutputTokens: 4096, suppressThinkingStream: false, engagementMode: 'balanced' };

export interface TokenBudget {
  maxOutputTokens: number;
  suppressThinkingStream: boolean;
  engagementMode: EngagementMode;
}

/** What an engagement mode does to routing (and, in part 2, to the remediation loop). */
export interface EngagementLimits {
  /** Tiers above the asked one a call may escalate to. */
  maxEscalation: number;
  /** Candidates tried per tier before escalating. */
  candidatesPerTier: number;
  /** Patch-and-test iterations a remediation job may run. */
  maxIterations: number;
}

export function engagementLimits(mode: EngagementMode, configuredEscalation: number): EngagementLimits {
  switch (mode) {
    case 'minimal':
      return { maxEscalation: 0, candidatesPerTier: 2, maxIterations: 1 };
    case 'thorough':
      return { maxEscalation: Math.min(9, configuredEscalation + 2), candidatesPerTier: 10, maxIterations: 8 };
    default:
      return { maxEscalation: configuredEscalation, candidatesPerTier: 4, maxIterations: 4 };
  }
}

/** Where a worker's run finds the budget its job carried (the `SettingsOverlay` of tenant-settings.ts). */
export interface CarriedBudgets {
  of(tenant: string): { snapshot: { budget: Partial<TokenBudget> } } | undefined;
}

/** Each tenant's token budget, applied to every gateway call. */
export class Budgets {
  private readonly db;

  constructor(
    store: StoreNamespace,
    private readonly overlay?: CarriedBudgets,
  ) {
    this.db = store.db('token-budgets');
  }

  /** The tenant's budget (inside a worker's run, the one the job carried). */
  get(tenant: string): TokenBudget {
    const carried = this.overlay?.of(tenant);
    if (carried) return { ...defaultBudget, ...carried.snapshot.budget };
    return { ...defaultBudget, ...(this.db.get(tenant) as Partial<TokenBudget> | undefined) };
  }

  async update(tenant: string, change: Partial<TokenBudget>): Promise<TokenBudget> {
    const next = { ...defaultBudget, ...(this.db.get(tenant) as Partial<TokenBudget> | undefined), ...change };
    await this.db.put(tenant, next);
    return next;
  }
}
