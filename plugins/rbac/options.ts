import { isValidProxyEntry } from './client-address.js';
import { z } from 'tessera-runtime/plugin';
import { permissionNamePattern } from './permissions.js';
import { tenantIdPattern } from './tenants.js';

/** Brute-force throttling of failed key attempts, per client address. */
export const bruteForceOptions = z
  .object({
    /** Failed attempts from one address, within `windowSeconds`, that start a block. @default 10 */
    maxFailures: z.number().int().min(1).default(10).describe('Failed key attempts from one address within the window that start a block.'),
    /** @default 60 */
    windowSeconds: z.number().int().min(1).default(60).describe('Window over which failures are counted, in seconds.'),
    /** How long every key from a blocked address is refused with 429. @default 300 */
    blockSeconds: z.number().int().min(1).default(300).describe('How long a blocked address is refused, in seconds.'),
    /** Addresses tracked at once; the oldest entries are dropped beyond it. @default 10000 */
    maxTrackedAddresses: z.number().int().min(100).default(10_000).describe('Addresses tracked at once; beyond it the oldest are dropped.'),
  })
  .strict();

export const rbacOptions = z
  .object({
    /** Tenant of the bootstrap user and key. @default "default" */
    defaultTenant: z.string().regex(tenantIdPattern).default('default').describe('Tenant of the bootstrap user and key.'),
    /** Name of the bootstrap user (role `superadmin`). @default "admin" */
    bootstrapUser: z.string().min(1).max(100).default('admin').describe('Name of the bootstrap user created on first start.'),
    bruteForce: bruteForceOptions.prefault({}),
    /** Browser sessions (POST /hub/session): lifetime, idle timeout, Secure cookie. */
    sessions: z
      .object({
        ttlSeconds: z
          .number()
          .int()
          .min(60)
          .max(30 * 86_400)
          .default(43_200)
          .describe('A session ends this long after sign-in.'),
        idleSeconds: z
          .number()
          .int()
          .min(60)
          .max(30 * 86_400)
          .default(1_800)
          .describe('A session ends after this long without a request.'),
        secureCookie: z
          .enum(['auto', 'always', 'never'])
          .default('auto')
          .describe('Mark the cookie Secure: "auto" when the request came over TLS; "always" behind a TLS-terminating proxy.'),
      })
      .strict()
      .prefault({}),
    /** Audit entries older than this many days are removed. @default 90 */
    auditRetentionDays: z.number().int().min(1).max(36_500).default(90).describe('Audit entries older than this many days are removed.'),
    /** Beyond this many audit entries the oldest are removed. @default 1000000 */
    auditMaxEntries: z.number().int().min(100).default(1_000_000).describe('Beyond this many audit entries the oldest are removed.'),
    /**
     * Route permissions of third-party plugins, so keys can be scoped to them; `admin` and
     * `superadmin` hold them, custom roles may. @default []
     */
    extraPermissions: z.array(z.string().regex(permissionNamePattern, 'a permission such as "things:read"')).default([]),
    /**
     * Reverse proxies (addresses or CIDR ranges) whose `X-Forwarded-For` is believed: a request
     * whose socket peer is one of them counts, for failed-key throttling and the audit log, as
     * coming from the right-most forwarded address that is not itself trusted. @default []
     */
    trustedProxies: z
      .array(z.string().refine(isValidProxyEntry, 'an IP address or CIDR range such as "10.0.0.0/8"'))
      .default([])
      .describe('Reverse proxies whose X-Forwarded-For is believed (addresses or CIDR ranges); empty: the header is ignored.'),
  })
  .strict();

export type RbacOptions = z.output<typeof rbacOptions>;
export type BruteForceOptions = z.output<typeof bruteForceOptions>;
