import { reply, z } from 'tessera-runtime/plugin';
import { actorOf, type RbacPrincipal } from './authenticator.js';
import type { RbacCore } from './core.js';
import { grantExceedsPermissions, unknownRole, userExists, userNotFound } from './errors.js';
import { newId } from './ids.js';
import { notHeld } from './permissions.js';
import { auditContext, principalOf, idCursor, pageQuery, tags, takePage, type Routes } from './route-helpers.js';
import { maxPasswordLength, minPasswordLength } from './passwords.js';
import { userNamePattern, type UserRecord } from './users.js';

const roleList = z.array(z.string().min(1).max(40)).max(32);
const password = z
  .string()
  .min(minPasswordLength)
  .max(maxPasswordLength)
  .describe(`For signing a browser in (POST /hub/session); ${minPasswordLength}-${maxPasswordLength} characters. Stored as an scrypt hash, never returned.`);

/** A user as answers show it: the record, and whether a password is set (never the hash). */
function userView(core: RbacCore, user: UserRecord): UserRecord & { hasPassword: boolean } {
  return { ...user, hasPassword: core.passwords.has(user.tenant, user.id) };
}

const createBody = z
  .object({
    name: z.string().regex(userNamePattern, 'letters, digits and . _ @ + -, up to 100').describe('Unique in the tenant; cannot change later.'),
    displayName: z.string().min(1).max(200).optional(),
    email: z.email().optional(),
    roles: roleList.default(['viewer']).describe('Built-in or custom role names; default ["viewer"].'),
    password: password.optional(),
  })
  .strict();

const updateBody = z
  .object({
    id: z.string().optional().describe('The user to change, by id...'),
    name: z.string().optional().describe('...or by name (exactly one of the two).'),
    displayName: z.string().min(1).max(200).nullable().optional(),
    email: z.email().nullable().optional(),
    roles: roleList.optional().describe("Replaces the user's roles."),
    disabled: z.boolean().optional().describe("A disabled user's keys are refused at once."),
    password: password.nullable().optional().describe('Sets the password (ending the sessions opened with the old one); `null` removes it.'),
  })
  .strict()
  .refine((b) => (b.id === undefined) !== (b.name === undefined), { message: 'give exactly one of "id" or "name"', path: ['id'] });

/** Roles must exist in the tenant and grant nothing the caller lacks (no privilege escalation). */
function checkRoles(core: RbacCore, principal: RbacPrincipal, roles: readonly string[]): void {
  const unknown = core.roles.unknown(principal.tenant, roles);
  if (unknown.length > 0) throw unknownRole(unknown);
  const missing = notHeld([...core.roles.permissionsOf(principal.tenant, roles)], principal.permissions);
  if (missing.length > 0) throw grantExceedsPermissions(core.permissions.normalise(missing), 'caller');
}

export function registerUserRoutes(routes: Routes, core: RbacCore): void {
  routes.add({
    method: 'GET',
    path: '/hub/rbac/users',
    permission: 'rbac:manage',
    authenticate: 'always',
    query: pageQuery,
    summary: 'Users of the tenant and their roles, oldest first',
    tags,
    handler: async (request) => {
      const principal = principalOf(request);
      const page = takePage(core.users.list(principal.tenant, idCursor(request.query.cursor)), request.query.limit);
      return { users: page.items.map((u) => userView(core, u)), nextCursor: page.nextCursor };
    },
  });

  routes.add({
    method: 'POST',
    path: '/hub/rbac/users',
    permission: 'rbac:manage',
    authenticate: 'always',
    body: createBody,
    summary: 'Create a user in the tenant',
    tags,
    handler: async (request) => {
      const principal = principalOf(request);
      const body = request.body;
      const roles = [...new Set(body.roles)];
      checkRoles(core, principal, roles);
      const now = new Date();
      const user: UserRecord = {
        id: newId(now.getTime()),
        tenant: principal.tenant,
        name: body.name,
        displayName: body.displayName ?? null,
        email: body.email ?? null,
        roles,
        disabled: false,
        createdAt: now.toISOString(),
        updatedAt: now.toISOString(),
        createdBy: principal.userId,
      };
      if (!(await core.users.create(user))) throw userExists(body.name);
      if (body.password !== undefined) await core.passwords.set(user.tenant, user.id, body.password);
      await core.audit.append({
        tenant: user.tenant,
        action: 'user.created',
        actor: actorOf(principal),
        target: { type: 'user', id: user.id },
        ...auditContext(core, request),
        details: { name: user.name, roles, password: body.password !== undefined },
      });
      return reply(201, { user: userView(core, user) });
    },
  });

  routes.add({
    method: 'PUT',
    path: '/hub/rbac/users',
    permission: 'rbac:manage',
    authenticate: 'always',
    body: updateBody,
    summary: "Change a user's roles, names, password or disabled flag",
    tags,
    handler: async (request) => {
      const principal = principalOf(request);
      const body = request.body;
      const which = (body.id ?? body.name)!;
      const target = body.id !== undefined ? core.users.get(principal.tenant, body.id) : core.users.byName(principal.tenant, body.name!);
      if (!target) throw userNotFound(which);
      // Whoever cannot grant a user's permissions cannot take them away or disable the user either.
      const beyond = notHeld([...core.roles.permissionsOf(target.tenant, target.roles)], principal.permissions);
      if (beyond.length > 0) throw grantExceedsPermissions(core.permissions.normalise(beyond), 'target');
      const roles = body.roles === undefined ? undefined : [...new Set(body.roles)];
      if (roles !== undefined) checkRoles(core, principal, roles);

      const updated = await core.users.update(target.tenant, target.id, (current) => ({
        ...current,
        displayName: body.displayName === undefined ? current.displayName : body.displayName,
        email: body.email === undefined ? current.email : body.email,
        roles: roles ?? current.roles,
        disabled: body.disabled ?? current.disabled,
        updatedAt: new Date().toISOString(),
      }));
      if (!updated) throw userNotFound(which);
      const changed: string[] = (['displayName', 'email', 'roles', 'disabled'] as const).filter(
        (f) => JSON.stringify(target[f]) !== JSON.stringify(updated[f]),
      );
      if (body.password !== undefined) {
        if (body.password === null) await core.passwords.remove(updated.tenant, updated.id);
        else await core.passwords.set(updated.tenant, updated.id, body.password);
        // Whoever signed in with the old password (perhaps the reason for the change) is signed out.
        await core.sessions.removeWhere((s) => s.keyId === null && s.tenant === updated.tenant && s.userId === updated.id);
        changed.push('password');
      }
      if (changed.length > 0) {
        const rolesChanged = changed.includes('roles');
        await core.audit.append({
          tenant: updated.tenant,
          action: rolesChanged ? 'user.roles_changed' : 'user.updated',
          actor: actorOf(principal),
          target: { type: 'user', id: updated.id },
          ...auditContext(core, request),
          details: rolesChanged ? { changed, before: target.roles, after: updated.roles } : { changed },
        });
      }
      return { user: userView(core, updated) };
    },
  });
}
