import { reply, z } from 'tessera-runtime/plugin';
import { actorOf, type RbacPrincipal } from './authenticator.js';
import type { RbacCore } from './core.js';
import { grantExceedsPermissions, invalidExpiry, keyNotFound, unknownPermission, userNotFound } from './errors.js';
import { coversPattern, generateKey, indexPatternPattern, type KeyRecord } from './keys.js';
import { notHeld } from './permissions.js';
import { auditContext, principalOf, idCursor, pageQuery, tags, takePage, type Routes } from './route-helpers.js';

const createBody = z
  .object({
    name: z.string().min(1).max(100).describe('What the key is for.'),
    scopes: z.array(z.string()).max(100).optional().describe('Permissions of the key; default: everything both you and its user hold.'),
    userId: z.string().optional().describe('The user the key acts for; default: you.'),
    expiresAt: z.iso.datetime({ offset: true }).nullable().default(null).describe('When the key stops working; default never.'),
    indexes: z
      .array(z.string().regex(indexPatternPattern, 'an index name, a prefix ending in "*" (logs-*), or "*"'))
      .min(1)
      .max(100)
      .optional()
      .describe('Search indexes the key may reach: names and prefix patterns; default: those you may reach (["*"] for an unscoped key).'),
  })
  .strict();

const listQuery = pageQuery.extend({ userId: z.string().optional().describe("Only this user's keys.") }).strict();

const manages = (principal: RbacPrincipal): boolean => principal.permissions.includes('rbac:manage');

/** A key is visible to managers of its tenant and to its own user; to everyone else it does not exist. */
function visible(principal: RbacPrincipal, key: KeyRecord): boolean {
  if (key.tenant !== principal.tenant) return false;
  return manages(principal) || (key.userId === principal.userId && key.tenant === principal.homeTenant);
}

export function registerKeyRoutes(routes: Routes, core: RbacCore): void {
  routes.add({
    method: 'POST',
    path: '/hub/rbac/keys',
    permission: 'rbac:manage',
    authenticate: 'always',
    body: createBody,
    summary: 'Generate a scoped API key; the secret is in this answer only',
    tags,
    handler: async (request) => {
      const principal = principalOf(request);
      const body = request.body;
      const ownerId = body.userId ?? principal.userId;
      const owner = core.users.get(principal.tenant, ownerId);
      if (!owner) throw userNotFound(ownerId);
      const ownerPermissions = [...core.roles.permissionsOf(owner.tenant, owner.roles)];
      let scopes: string[];
      if (body.scopes === undefined) {
        scopes = core.permissions.normalise(ownerPermissions.filter((p) => principal.permissions.includes(p)));
      } else {
        const unknown = core.permissions.unknown(body.scopes);
        if (unknown.length > 0) throw unknownPermission(unknown);
        scopes = core.permissions.normalise(body.scopes);
        const beyondCaller = notHeld(scopes, principal.permissions);
        if (beyondCaller.length > 0) throw grantExceedsPermissions(beyondCaller, 'caller');
        const beyondOwner = notHeld(scopes, ownerPermissions);
        if (beyondOwner.length > 0) throw grantExceedsPermissions(beyondOwner, 'owner');
      }
      const callerIndexes = principal.indexes;
      const indexes = body.indexes === undefined ? [...callerIndexes] : [...new Set(body.indexes)];
      const beyondIndexes = indexes.filter((p) => !coversPattern(callerIndexes, p));
      if (beyondIndexes.length > 0)
        throw grantExceedsPermissions(
          beyondIndexes.map((p) => `index ${p}`),
          'caller',
        );
      const now = Date.now();
      if (body.expiresAt !== null && Date.parse(body.expiresAt) <= now) throw invalidExpiry();
      const generated = generateKey(now);
      const record: KeyRecord = {
        id: generated.id,
        tenant: owner.tenant,
        userId: owner.id,
        name: body.name,
        prefix: generated.prefix,
        hash: generated.hash,
        scopes,
        indexes,
        createdBy: principal.userId,
        createdAt: new Date(now).toISOString(),
        expiresAt: body.expiresAt === null ? null : new Date(body.expiresAt).toISOString(),
        revokedAt: null,
      };
      await core.keys.create(record);
      await core.audit.append({
        tenant: record.tenant,
        action: 'key.created',
        actor: actorOf(principal),
        target: { type: 'key', id: record.id },
        ...auditContext(core, request),
        details: { name: record.name, userId: record.userId, scopes, indexes, expiresAt: record.expiresAt },
      });
      return reply(201, { key: core.keys.view(record, now), secret: generated.secret });
    },
  });

  routes.add({
    method: 'GET',
    path: '/hub/rbac/keys',
    permission: 'authenticated',
    authenticate: 'always',
    query: listQuery,
    summary: "API keys (never their secrets): all of the tenant's with rbac:manage, else your own",
    tags,
    handler: async (request) => {
      const principal = principalOf(request);
      const { cursor, limit, userId } = request.query;
      const now = Date.now();
      let only = userId;
      if (!manages(principal)) {
        if (principal.tenant !== principal.homeTenant || (userId !== undefined && userId !== principal.userId)) return { keys: [], nextCursor: null };
        only = principal.userId;
      }
      const page = takePage(core.keys.listTenant(principal.tenant, idCursor(cursor), only), limit);
      return { keys: page.items.map((k) => core.keys.view(k, now)), nextCursor: page.nextCursor };
    },
  });

  routes.add({
    method: 'DELETE',
    path: '/hub/rbac/keys/:id',
    permission: 'authenticated',
    authenticate: 'always',
    summary: 'Revoke a key at once (your own, or any in the tenant with rbac:manage); idempotent',
    tags,
    handler: async (request) => {
      const principal = principalOf(request);
      const id = request.params.id!;
      const existing = core.keys.get(id);
      if (!existing || !visible(principal, existing)) throw keyNotFound(id);
      const at = new Date();
      const revoked = (await core.keys.revoke(id, at.toISOString()))!;
      if (existing.revokedAt === null) {
        await core.audit.append({
          tenant: revoked.tenant,
          action: 'key.revoked',
          actor: actorOf(principal),
          target: { type: 'key', id },
          ...auditContext(core, request),
          details: { name: revoked.name, userId: revoked.userId },
        });
      }
      return { key: core.keys.view(revoked, at.getTime()) };
    },
  });
}
