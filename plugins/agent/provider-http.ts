import type { EgressPolicy, OutboundClient, OutboundResponse } from 'tessera-runtime/plugin';
import type { ProviderConfig } from './provider-config.js';

export interface ProviderHttpOptions {
  outbound: OutboundClient;
  config: ProviderConfig;
  allow: Partial<EgressPolicy>;
  timeoutMs: number;
}

/**
 * Calls to a tenant's routing provider, through `ctx.outbound`: the manifest's base URL is trusted,
 * a tenant's is held to the egress policy (widened by the plugin's `allowPrivateAddresses` and
 * `allowHosts`). The tenant's key goes in `Authorization: Bearer` and nowhere else.
 */
export class ProviderHttp {
  constructor(private readonly o: ProviderHttpOptions) {}

  origin(tenant: string): string {
    return new URL(this.o.config.baseUrl(tenant).url).origin;
  }

  async request(
    tenant: string,
    path: string,
    init: { method?: string; body?: unknown; signal?: AbortSignal; timeoutMs?: number; maxBytes?: number } = {},
  ): Promise<OutboundResponse> {
    const base = this.o.config.baseUrl(tenant);
    const key = this.o.config.apiKey(tenant);
    const headers: Record<string, string> = { accept: 'application/json' };
    if (key) headers.authorization = `Bearer ${key}`;
    if (init.body !== undefined) headers['content-type'] = 'application/json';
    return this.o.outbound.fetch(`${base.url}${path}`, {
      method: init.method ?? 'GET',
      headers,
      ...(init.body !== undefined ? { body: JSON.stringify(init.body) } : {}),
      ...(init.signal ? { signal: init.signal } : {}),
      timeoutMs: init.timeoutMs ?? this.o.timeoutMs,
      maxBytes: init.maxBytes ?? 64 * 1024 * 1024,
      ...(base.trusted ? { trusted: true } : { allow: this.o.allow }),
    });
  }
}
