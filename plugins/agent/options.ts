import { z } from 'tessera-runtime/plugin';
import { ticketOptions } from './jobs/options.js';
import { repoOptions } from './repos/options.js';
import { workerOptions } from './worker/options.js';

const breakerOptions = z
  .strictObject({
    /** Consecutive failures that open a circuit. @default 5 */
    consecutiveFailures: z.number().int().min(1).max(1000).default(5),
    /** Failure rate over `windowMs` that opens a circuit, once `minCalls` calls were seen. @default 0.5 */
    errorRate: z.number().gt(0).max(1).default(0.5),
    /** @default 60000 */
    windowMs: z.number().int().min(1000).default(60_000),
    /** @default 10 */
    minCalls: z.number().int().min(1).default(10),
    /** How long an open circuit waits before one probe call (half-open). @default 30000 */
    cooldownMs: z.number().int().min(10).default(30_000),
  })
  .prefault({});

/** The operator's provider key: an environment variable's name, and the tenants that may use it. */
const operatorKeyOptions = {
  /**
   * The name of an environment variable holding a provider API key for tenants that set none of
   * their own (read by each process, service and worker, from its own environment). Only sent to
   * the manifest's `baseUrl`, never to a base URL a tenant set.
   */
  apiKeyEnv: z
    .string()
    .regex(/^[A-Za-z_][A-Za-z0-9_]*$/, 'an environment variable name: letters, digits and "_", not starting with a digit')
    .max(200)
    .optional(),
  /** Tenants that may use the `apiKeyEnv` key when they have none of their own; `["*"]` for every tenant. @default ["default"] */
  apiKeyTenants: z
    .array(z.string().min(1).max(200))
    .min(1)
    .max(10_000)
    .default(['default'])
    .refine((t) => !t.includes('*') || t.length === 1, '"*" (every tenant) stands alone')
    .refine((t) => new Set(t).size === t.length, 'a tenant is listed twice'),
};

export const agentOptionsSchema = z.strictObject({
  /** The routing provider's base URL when a tenant sets none (OpenRouter-compatible: `GET {baseUrl}/models`, `POST {baseUrl}/chat/completions`). */
  baseUrl: z.url({ protocol: /^https?$/ }).default('https://openrouter.ai/api/v1'),
  /** The file holding the key that encrypts provider API keys at rest (created 0600 when absent); relative to the data directory's parent. @default "agent-secrets.key" beside the data directory */
  keyFile: z.string().min(1).optional(),
  ...operatorKeyOptions,
  /** Let tenants point `baseUrl` at private or loopback addresses (a local llama.cpp, Ollama or vLLM). @default false */
  allowPrivateAddresses: z.boolean().default(false),
  /** Hosts tenants' `baseUrl` may name even when private (`host`, `host:port`, `*.domain`, CIDR). */
  allowHosts: z.array(z.string().min(1)).default([]),
  /** Timeout of one provider call. @default 60000 */
  callTimeoutMs: z.number().int().min(100).default(60_000),
  /** How many tiers above the asked one a call may escalate to when a tier is exhausted. @default 2 */
  maxEscalation: z.number().int().min(0).max(9).default(2),
  breaker: breakerOptions,
  sync: z
    .strictObject({
      /** Attempts of one sync job (the first included). @default 3 */
      attempts: z.number().int().min(1).max(10).default(3),
      /** First retry delay; doubles each time. @default 2000 */
      backoffMs: z.number().int().min(0).default(2000),
    })
    .prefault({}),
  /** A SearXNG instance the documentation search tool also asks (`GET {url}/search?format=json`); written by the operator, so trusted. */
  searxngUrl: z.url({ protocol: /^https?$/ }).optional(),
  cache: z
    .strictObject({
      /** @default true */
      enabled: z.boolean().default(true),
      /** Cosine similarity from which a semantic neighbour counts as a hit. @default 0.95 */
      similarityThreshold: z.number().min(0).max(1).default(0.95),
    })
    .prefault({}),
  ...repoOptions,
  ...workerOptions,
  ...ticketOptions,
});

export type AgentOptions = z.output<typeof agentOptionsSchema>;
