import type { Logger } from 'tessera-runtime/plugin';
import type { RbacCore } from './core.js';
import { newId } from './ids.js';
import { generateKey, type KeyRecord } from './keys.js';
import type { UserRecord } from './users.js';

const BOOTSTRAPPED = 'bootstrappedAt';

/**
 * On the first start with an empty store: a `superadmin` user and one key for it, written in one
 * transaction, and the key printed once to the log (seed 001, rule 5). The store remembers that
 * bootstrap happened, so later starts print nothing even if that user is gone.
 */
export async function bootstrap(core: RbacCore, log: Logger): Promise<void> {
  if (core.meta.get(BOOTSTRAPPED) !== undefined) return;
  const now = new Date();
  const at = now.toISOString();
  const tenant = core.options.defaultTenant;
  const user: UserRecord = {
    id: newId(now.getTime()),
    tenant,
    name: core.options.bootstrapUser,
    displayName: 'Bootstrap administrator',
    email: null,
    roles: ['superadmin'],
    disabled: false,
    createdAt: at,
    updatedAt: at,
    createdBy: null,
  };
  const generated = generateKey(now.getTime());
  const key: KeyRecord = {
    id: generated.id,
    tenant,
    userId: user.id,
    name: 'bootstrap',
    prefix: generated.prefix,
    hash: generated.hash,
    scopes: [...core.permissions.all],
    createdBy: user.id,
    createdAt: at,
    expiresAt: null,
    revokedAt: null,
  };
  const written = await core.transaction(() => {
    // Another process on the same store may have bootstrapped since the check above.
    if (core.meta.get(BOOTSTRAPPED) !== undefined) return false;
    core.users.writeInTransaction(user);
    core.keys.writeInTransaction(key);
    core.audit.appendInTransaction(
      { tenant, action: 'bootstrap', actor: null, target: { type: 'key', id: key.id }, details: { userId: user.id, userName: user.name } },
      now,
    );
    void core.meta.put(BOOTSTRAPPED, at);
    return true;
  });
  if (!written) return;
  log.warn(
    { tenant, user: user.name, keyId: key.id, apiKey: generated.secret },
    // The secret appears once in the line, in `apiKey`: log shippers and screens do not get it twice.
    'Bootstrap admin API key (the apiKey field), shown only this once; store it now',
  );
}
