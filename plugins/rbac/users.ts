import type { Database } from 'lmdb';

export interface UserRecord {
  id: string;
  tenant: string;
  /** Unique within the tenant: the login-like handle used by PUT /hub/rbac/users. */
  name: string;
  displayName: string | null;
  email: string | null;
  roles: string[];
  /** A disabled user's keys stop working at once; re-enabling brings them back. */
  disabled: boolean;
  createdAt: string;
  updatedAt: string;
  /** User id of the creator; `null` for the bootstrap user. */
  createdBy: string | null;
}

export const userNamePattern = /^[A-Za-z0-9][A-Za-z0-9._@+-]{0,99}$/;

/** Users keyed by tenant first, with a per-tenant name index. */
export class UserStore {
  private readonly users: Database<UserRecord, [string, string]>;
  private readonly names: Database<string, [string, string]>;

  constructor(dbs: { users: Database<UserRecord, [string, string]>; names: Database<string, [string, string]> }) {
    this.users = dbs.users;
    this.names = dbs.names;
  }

  get(tenant: string, id: string): UserRecord | undefined {
    return this.users.get([tenant, id]);
  }

  byName(tenant: string, name: string): UserRecord | undefined {
    const id = this.names.get([tenant, name]);
    return id === undefined ? undefined : this.get(tenant, id);
  }

  /** Writes the user unless the name is taken in its tenant; `false` when it is. */
  async create(user: UserRecord): Promise<boolean> {
    return this.users.transaction(() => {
      if (this.names.get([user.tenant, user.name]) !== undefined) return false;
      this.writeInTransaction(user);
      return true;
    });
  }

  /** For callers that already hold a write transaction (bootstrap). */
  writeInTransaction(user: UserRecord): void {
    void this.users.put([user.tenant, user.id], user);
    void this.names.put([user.tenant, user.name], user.id);
  }

  /** Applies `change` to the stored user atomically; undefined if it no longer exists. */
  async update(tenant: string, id: string, change: (user: UserRecord) => UserRecord): Promise<UserRecord | undefined> {
    return this.users.transaction(() => {
      const current = this.users.get([tenant, id]);
      if (!current) return undefined;
      const next = change(current);
      void this.users.put([tenant, id], next);
      return next;
    });
  }

  /** The tenant's users in creation order, after `afterId`. */
  *list(tenant: string, afterId?: string): Generator<UserRecord> {
    for (const { key, value } of this.users.getRange({ start: [tenant, afterId ?? ''], end: [tenant, '\uffff'] })) {
      if (afterId !== undefined && key[1] <= afterId) continue;
      yield value;
    }
  }
}
