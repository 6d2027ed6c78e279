import { errors } from '../errors.js';
import type { Gateway } from '../gateway.js';
import type { ChatMessage } from '../llm-provider.js';
import type { ProviderConfig } from '../provider-config.js';

export interface ModelAnswer {
  content: string;
  model: string;
  tier: number;
  costUsd: number;
  tokens: number;
}

/**
 * The agents' door to the gateway: refuses with `provider_not_configured` before any call when the
 * tenant has no provider, and calls a tier through the router (failover, circuits, budgets). The
 * semantic cache is skipped: a remediation prompt carries the last failure, and a cached diff that
 * failed once would fail again.
 */
export class AgentModel {
  constructor(
    private readonly gateway: Gateway,
    private readonly config: ProviderConfig,
  ) {}

  /** A tenant has a provider when it set an API key, or a base URL of its own (a keyless local server), or the operator's key serves it. */
  configured(tenant: string): boolean {
    return this.config.configured(tenant);
  }

  assertConfigured(tenant: string): void {
    if (!this.configured(tenant)) throw errors.provider_not_configured({ tenant });
  }

  async call(tenant: string, tier: number, messages: ChatMessage[], signal?: AbortSignal, maxTokens?: number): Promise<ModelAnswer> {
    this.assertConfigured(tenant);
    const { result, summary } = await this.gateway.complete({
      tenant,
      request: { model: `tier:${tier}`, messages, temperature: 0, ...(maxTokens ? { max_tokens: maxTokens } : {}) },
      cache: false,
      ...(signal ? { signal } : {}),
    });
    return {
      content: typeof result.message.content === 'string' ? result.message.content : '',
      model: summary.model,
      tier: summary.tier,
      costUsd: summary.costUsd,
      tokens: summary.usage.total_tokens,
    };
  }
}

/** The first JSON object of a model answer (inside a ```json fence or bare), or `undefined`. */
export function parseJsonObject(text: string): Record<string, unknown> | undefined {
  const fenced = /```(?:json)?\s*\n([\s\S]*?)```/.exec(text)?.[1];
  for (const candidate of [fenced, text]) {
    if (!candidate) continue;
    const start = candidate.indexOf('{');
    const end = candidate.lastIndexOf('}');
    if (start < 0 || end <= start) continue;
    try {
      const value = JSON.parse(candidate.slice(start, end + 1)) as unknown;
      if (value && typeof value === 'object' && !Array.isArray(value)) return value as Record<string, unknown>;
    } catch {
      // not JSON: try the next candidate
    }
  }
  return undefined;
}

/**
 * The unified diff of a model answer: the body of its first ```diff (or ```patch) fence, else the
 * text from its first `diff --git` or `--- ` line. Ends with a newline. Empty when there is none.
 */
export function extractDiff(text: string): string {
  const fenced = /```(?:diff|patch|udiff)[^\n]*\n([\s\S]*?)```/.exec(text)?.[1];
  let diff = fenced ?? '';
  if (!diff) {
    const m = /^(diff --git |--- )/m.exec(text);
    diff = m ? text.slice(m.index) : '';
  }
  if (diff && !diff.endsWith('\n')) diff += '\n';
  return diff;
}
