import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { repoRoot } from '../../helpers/app.js';
import { generatedEnd, generatedStart, renderGeneratedSection, updateDoc } from '../../../plugins/rbac/role-matrix.js';

describe('docs/rbac.md', () => {
  const doc = readFileSync(`${repoRoot}docs/rbac.md`, 'utf8');

  it('carries the permission list and role matrix generated from the code (refresh: node dist/plugins/rbac/role-matrix.js)', () => {
    expect(doc).toContain(generatedStart);
    expect(doc).toContain(generatedEnd);
    expect(updateDoc(doc)).toBe(doc);
  });

  it('renders one matrix row per catalogue permission and one column per built-in role', () => {
    const rows = renderGeneratedSection().split('### Role x permission matrix')[1]!.split('\n').filter((l) => l.startsWith('| `'));
    expect(rows).toHaveLength(18);
    expect(rows[0]).toBe('| `workflow:read` | yes | yes | yes | yes | yes | - |');
    expect(rows.at(-1)).toBe('| `tenants:manage` | yes | - | - | - | - | - |');
  });

  it('documents every option default and every endpoint the plugin serves', () => {
    for (const option of ['defaultTenant', 'bootstrapUser', 'bruteForce.maxFailures', 'bruteForce.windowSeconds', 'bruteForce.blockSeconds', 'bruteForce.maxTrackedAddresses', 'extraPermissions']) {
      expect(doc).toContain(`| \`${option}\` |`);
    }
    for (const route of ['GET /hub/me', 'GET /hub/rbac/users', 'POST /hub/rbac/users', 'PUT /hub/rbac/users', 'GET /hub/rbac/roles', 'POST /hub/rbac/roles', 'POST /hub/rbac/keys', 'GET /hub/rbac/keys', 'DELETE /hub/rbac/keys/:id', 'GET /hub/rbac/audit', 'GET /hub/rbac/permissions']) {
      expect(doc).toContain(`| \`${route}\` |`);
    }
  });
});
