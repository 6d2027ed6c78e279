import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { repoRoot } from '../../helpers/app.js';
import { generatedEnd, renderGeneratedSection, updateDoc } from '../../../plugins/rbac/role-matrix.js';
import { builtinPermissions } from '../../../scripts/generate-docs.js';

describe('docs/rbac.md', () => {
  const doc = readFileSync(`${repoRoot}docs/rbac.md`, 'utf8');

  it('carries the permission list and role matrix generated from the code (refresh: npm run docs)', async () => {
    expect(doc).toContain(generatedEnd);
    expect(updateDoc(doc, await builtinPermissions())).toBe(doc);
  });

  it('renders one matrix row per declared permission and one column per built-in role', async () => {
    const declared = await builtinPermissions();
    const rows = renderGeneratedSection(declared)
      .split('### Role x permission matrix')[1]!
      .split('\n')
      .filter((l) => l.startsWith('| `'));
    expect(rows).toHaveLength(declared.length);
    expect(rows.find((r) => r.startsWith('| `search:read`'))).toBe('| `search:read` | yes | yes | yes | yes | yes | - |');
    expect(rows.find((r) => r.startsWith('| `tenants:manage`'))).toBe('| `tenants:manage` | yes | - | - | - | - | - |');
    expect(rows.find((r) => r.startsWith('| `system:read`'))).toBe('| `system:read` | yes | yes | - | yes | - | - |');
  });

  it('documents every option default and every endpoint the plugin serves', () => {
    for (const option of [
      'defaultTenant',
      'bootstrapUser',
      'bruteForce.maxFailures',
      'bruteForce.windowSeconds',
      'bruteForce.blockSeconds',
      'bruteForce.maxTrackedAddresses',
      'extraPermissions',
      'auditRetentionDays',
      'auditMaxEntries',
      'sessions.ttlSeconds',
      'sessions.idleSeconds',
      'sessions.secureCookie',
    ]) {
      expect(doc).toContain(`| \`${option}\` |`);
    }
    for (const route of [
      'GET /hub/me',
      'GET /hub/rbac/users',
      'POST /hub/rbac/users',
      'PUT /hub/rbac/users',
      'GET /hub/rbac/roles',
      'POST /hub/rbac/roles',
      'POST /hub/rbac/keys',
      'GET /hub/rbac/keys',
      'DELETE /hub/rbac/keys/:id',
      'GET /hub/rbac/audit',
      'GET /hub/rbac/permissions',
      'POST /hub/session',
      'GET /hub/session',
      'DELETE /hub/session',
    ]) {
      expect(doc).toContain(`| \`${route}\` |`);
    }
  });
});
