import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { tenancyConformance } from 'tessera-runtime/testing';

// Scans belong to the tenant that started them: another tenant neither lists, reads nor stops them,
// and each tenant's scan feeds its own tenant's index of the same name.
const root = mkdtempSync(path.join(tmpdir(), 'tessera-scan-tenancy-'));
writeFileSync(path.join(root, 'items.jsonl'), '{"id":"1","title":"first"}\n{"id":"2","title":"second"}\n');

tenancyConformance(
  'scanner',
  {
    manifest: {
      listeners: [
        { name: 'scanner', port: 0, plugins: ['scanner'] },
        { name: 'search', port: 0, plugins: ['search'] },
      ],
      plugins: { search: {}, scanner: { options: { roots: [root] } } },
    },
    listener: 'scanner',
  },
  [
    {
      name: 'scan',
      create: async (c, label) => {
        const started = await c.call('POST', '/v1/scans/file', { path: path.join(root, 'items.jsonl'), targetIndex: `items-${label}` });
        if (started.status !== 200) throw new Error(JSON.stringify(started.body));
        return started.body.scanId as string;
      },
      read: (c, id) => c.call('GET', `/v1/scans/${id}`),
      list: async (c) => (await c.call('GET', '/v1/scans?limit=1000')).body.scans.map((s: { id: string }) => s.id),
      remove: (c, id) => c.call('DELETE', `/v1/scans/${id}`),
    },
  ],
);
