import { lookup as dnsLookup, type LookupAddress, type LookupOptions } from 'node:dns';
import { Agent, fetch as undiciFetch, type RequestInit as UndiciRequestInit } from 'undici';
import { TesseraError } from '../errors.js';
import { CompiledEgressPolicy, mergePolicies, type DenyReason, type EgressPolicy } from './egress-policy.js';

export interface OutboundSettings extends EgressPolicy {
  /** Whole request, headers and body, in ms. */
  timeoutMs: number;
  maxRedirects: number;
  /** Largest response body read, in bytes. */
  maxBytes: number;
}

export interface OutboundRequestInit {
  method?: string;
  headers?: Record<string, string> | Headers;
  body?: string | Uint8Array;
  signal?: AbortSignal;
  /**
   * `true` for destinations the operator wrote in the manifest (an embedding or model server): no
   * address policy, only the limits. API callers' URLs (crawl seeds, webhooks, remote images) are
   * never trusted.
   */
  trusted?: boolean;
  /** Widen the deployment's policy for this call (a plugin's own `allowPrivateAddresses`/`allowHosts` options). */
  allow?: Partial<EgressPolicy>;
  timeoutMs?: number;
  maxRedirects?: number;
  maxBytes?: number;
  /** `manual` returns 3xx answers instead of following them (each hop is checked either way). @default "follow" */
  redirect?: 'follow' | 'manual';
}

/** What the client answers: the final response, with its URL after redirects. */
export interface OutboundResponse {
  status: number;
  headers: Headers;
  url: string;
  redirects: string[];
  /** The body, at most `maxBytes` (more is `upstream_too_large`). */
  bytes(): Promise<Uint8Array>;
  text(): Promise<string>;
  json(): Promise<unknown>;
  /** The body as it arrives, bounded by `maxBytes`. */
  stream(): AsyncIterable<Uint8Array>;
  /** Release the connection without reading the body. */
  discard(): Promise<void>;
}

/** `ctx.outbound`: the one HTTP client plugins use for calls leaving the process. */
export interface OutboundClient {
  fetch(url: string | URL, init?: OutboundRequestInit): Promise<OutboundResponse>;
  /** The policy API callers' destinations are checked against (for plugins that validate URLs up front). */
  check(url: string | URL, allow?: Partial<EgressPolicy>): { allowed: true } | { allowed: false; reason: DenyReason };
}

const reasons: Record<DenyReason | 'redirect_limit', string> = {
  scheme: 'only http and https destinations are allowed',
  private_address: 'the destination is a loopback, private, link-local or otherwise non-public address, which this deployment does not allow',
  credentials_in_url: 'a URL with a user name or password is not allowed',
  redirect_limit: 'too many redirects',
};

export class EgressDeniedError extends TesseraError {
  constructor(url: string, reason: DenyReason | 'redirect_limit') {
    super('egress_denied', 403, `Outbound call to ${url} refused: ${reasons[reason]}.`, { details: { url, reason } });
    this.name = 'EgressDeniedError';
  }
}

function upstreamError(code: 'upstream_unreachable' | 'upstream_timeout' | 'upstream_too_large', url: string, message: string): TesseraError {
  return new TesseraError(code, code === 'upstream_timeout' ? 504 : 502, message, { details: { url } });
}

const redirectStatuses = new Set([301, 302, 303, 307, 308]);

/**
 * The outbound client. Callers' destinations go through the egress policy twice: the URL (scheme,
 * literal addresses) before the call, and every resolved address at connect time, inside the DNS
 * lookup the connection itself uses, so a name that resolves to a private address (DNS rebinding
 * included) is refused on the very connection that would have used it. Redirects are followed
 * by hand, each hop checked the same way.
 */
export function createOutboundClient(settings: OutboundSettings, userAgent: string): OutboundClient & { close(): Promise<void> } {
  const agents = new Map<string, Agent>();
  const agentFor = (policy: CompiledEgressPolicy | undefined, key: string): Agent => {
    let agent = agents.get(key);
    if (agent) return agent;
    agent = new Agent({
      connect: policy
        ? {
            lookup(
              hostname: string,
              options: LookupOptions,
              callback: (err: NodeJS.ErrnoException | null, address: string | LookupAddress[], family?: number) => void,
            ) {
              dnsLookup(hostname, { all: true, ...(options.family ? { family: options.family } : {}) }, (err, addresses) => {
                if (err) return callback(err, []);
                const allowed = addresses.filter((a) => policy.addressAllowed(a.address));
                if (allowed.length === 0) {
                  return callback(Object.assign(new Error(`egress denied: ${hostname} resolves only to non-public addresses`), { code: 'EGRESS_DENIED' }), []);
                }
                if (options.all) callback(null, allowed);
                else callback(null, allowed[0]!.address, allowed[0]!.family);
              });
            },
          }
        : {},
    });
    agents.set(key, agent);
    return agent;
  };

  const policyFor = (allow?: Partial<EgressPolicy>): { policy: CompiledEgressPolicy; key: string } => {
    const merged = mergePolicies(settings, allow);
    return { policy: new CompiledEgressPolicy(merged), key: JSON.stringify(merged) };
  };

  const client = {
    check(url: string | URL, allow?: Partial<EgressPolicy>) {
      let parsed: URL;
      try {
        parsed = new URL(url);
      } catch {
        return { allowed: false as const, reason: 'scheme' as const };
      }
      const reason = policyFor(allow).policy.checkUrl(parsed);
      return reason ? { allowed: false as const, reason } : { allowed: true as const };
    },

    async fetch(input: string | URL, init: OutboundRequestInit = {}): Promise<OutboundResponse> {
      const { policy, key } = init.trusted ? { policy: undefined, key: 'trusted' } : policyFor(init.allow);
      const maxBytes = init.maxBytes ?? settings.maxBytes;
      const maxRedirects = init.maxRedirects ?? settings.maxRedirects;
      const timeout = AbortSignal.timeout(init.timeoutMs ?? settings.timeoutMs);
      const signal = init.signal ? AbortSignal.any([init.signal, timeout]) : timeout;
      const headers = new Headers(init.headers);
      if (!headers.has('user-agent')) headers.set('user-agent', userAgent);
      let url = new URL(input);
      let method = init.method ?? 'GET';
      let body = init.body;
      const redirects: string[] = [];
      for (;;) {
        if (policy) {
          const reason = policy.checkUrl(url);
          if (reason) throw new EgressDeniedError(url.href, reason);
        }
        // A destination the allow-list names goes through whatever its address (an intranet host).
        const listed = policy?.hostListed(url.hostname, url.port || (url.protocol === 'https:' ? '443' : '80')) ?? true;
        let res;
        try {
          res = await undiciFetch(url, {
            method,
            headers,
            body,
            signal,
            redirect: 'manual',
            dispatcher: listed ? agentFor(undefined, 'trusted') : agentFor(policy, key),
          } as unknown as UndiciRequestInit);
        } catch (err) {
          const cause = (err as { cause?: { code?: string; message?: string } }).cause;
          if (cause?.code === 'EGRESS_DENIED') throw new EgressDeniedError(url.href, 'private_address');
          if (timeout.aborted)
            throw upstreamError('upstream_timeout', url.href, `${url.href} did not answer within ${init.timeoutMs ?? settings.timeoutMs} ms.`);
          if (init.signal?.aborted) throw err;
          throw upstreamError('upstream_unreachable', url.href, `${url.href} is unreachable (${cause?.code ?? cause?.message ?? (err as Error).message}).`);
        }
        if (init.redirect !== 'manual' && redirectStatuses.has(res.status) && res.headers.get('location')) {
          await res.body?.cancel();
          if (redirects.length >= maxRedirects) throw new EgressDeniedError(url.href, 'redirect_limit');
          redirects.push(url.href);
          url = new URL(res.headers.get('location')!, url);
          if (res.status === 303 || ((res.status === 301 || res.status === 302) && method === 'POST')) {
            method = 'GET';
            body = undefined;
            headers.delete('content-type');
          }
          continue;
        }
        const declared = Number(res.headers.get('content-length') ?? NaN);
        const finalUrl = url.href;
        if (Number.isFinite(declared) && declared > maxBytes) {
          await res.body?.cancel();
          throw upstreamError('upstream_too_large', finalUrl, `${finalUrl} answered ${declared} bytes, over the limit of ${maxBytes}.`);
        }
        const stream = async function* (): AsyncIterable<Uint8Array> {
          if (!res.body) return;
          let total = 0;
          for await (const chunk of res.body as AsyncIterable<Uint8Array>) {
            total += chunk.byteLength;
            if (total > maxBytes) {
              await res.body.cancel().catch(() => undefined);
              throw upstreamError('upstream_too_large', finalUrl, `${finalUrl} answered more than the limit of ${maxBytes} bytes.`);
            }
            yield chunk;
          }
        };
        const bytes = async (): Promise<Uint8Array> => {
          const chunks: Uint8Array[] = [];
          try {
            for await (const chunk of stream()) chunks.push(chunk);
          } catch (err) {
            if (timeout.aborted)
              throw upstreamError('upstream_timeout', finalUrl, `${finalUrl} did not finish within ${init.timeoutMs ?? settings.timeoutMs} ms.`);
            throw err;
          }
          return Buffer.concat(chunks);
        };
        return {
          status: res.status,
          headers: res.headers as unknown as Headers,
          url: finalUrl,
          redirects,
          bytes,
          text: async () => Buffer.from(await bytes()).toString('utf8'),
          json: async () => JSON.parse(Buffer.from(await bytes()).toString('utf8')),
          stream,
          discard: async () => {
            await res.body?.cancel().catch(() => undefined);
          },
        };
      }
    },

    async close() {
      await Promise.all([...agents.values()].map((a) => a.close()));
      agents.clear();
    },
  };
  return client;
}
