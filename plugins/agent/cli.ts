/**
 * The agent plugin's CLI command: `tessera worker`, a process that takes agent jobs of chosen tiers
 * from the shared work queue (docs/agent-api.md, "Workers"). `runtime/cli.ts` finds this module and
 * dispatches to it. Exit codes: 0 a clean stop, 1 a start-up failure, 2 bad usage.
 */
import { readFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { defineCommands, type CliHost } from 'tessera-runtime/plugin';
import { defaultQueueDir } from './worker/setup.js';

const usageError = (host: CliHost, message: string): number => {
  host.stderr(`tessera: ${message} (tessera --help shows every option)\n`);
  return 2;
};

/** `7,8,9,10` or `7-10` (or both, comma-separated); undefined when invalid. */
export function parseTiers(text: string): number[] | undefined {
  const out = new Set<number>();
  for (const part of text.split(',').map((s) => s.trim())) {
    const m = /^(\d{1,2})(?:-(\d{1,2}))?$/.exec(part);
    if (!m) return undefined;
    const from = Number(m[1]);
    const to = Number(m[2] ?? m[1]);
    if (from < 1 || to > 10 || from > to) return undefined;
    for (let t = from; t <= to; t++) out.add(t);
  }
  return out.size > 0 ? [...out].sort((a, b) => a - b) : undefined;
}

export const commands = defineCommands([
  {
    name: 'worker',
    summary: "Take agent jobs of chosen tiers from the service's shared work queue (a dedicated pod for heavy tiers)",
    options: {
      manifest: { type: 'string', valueName: 'FILE', description: "The service's manifest: the worker loads the same plugins and options" },
      tiers: { type: 'string', valueName: 'LIST', description: 'Tiers this worker takes, as 7,8,9,10 or 7-10' },
      queue: {
        type: 'string',
        valueName: 'DIR',
        description: "The shared queue's directory (default: the manifest's workers.queueDir, else beside its dataDir)",
      },
      'data-dir': { type: 'string', valueName: 'DIR', description: "This worker's own store (default: <dataDir>-worker-<hostname>); one per worker process" },
      concurrency: { type: 'string', valueName: 'N', description: 'Jobs run at once (default 1)' },
      'worker-id': { type: 'string', valueName: 'ID', description: 'The name leases are held under (default <hostname>-<pid>)' },
      port: { type: 'string', valueName: 'N', description: 'Port of the worker listener: /health and /metrics only (default 0: any free port)' },
    },
    async run({ values }, host) {
      if (typeof values.manifest !== 'string') return usageError(host, 'worker needs --manifest FILE');
      const tiers = typeof values.tiers === 'string' ? parseTiers(values.tiers) : undefined;
      if (!tiers) return usageError(host, 'worker needs --tiers, a list of tiers from 1 to 10 such as 7,8,9,10 or 7-10');
      const concurrency = values.concurrency === undefined ? 1 : Number(values.concurrency);
      if (!Number.isInteger(concurrency) || concurrency < 1 || concurrency > 64) return usageError(host, '--concurrency must be an integer from 1 to 64');
      const port = values.port === undefined ? 0 : Number(values.port);
      if (!/^\d+$/.test(String(values.port ?? '0')) || port > 65535) return usageError(host, '--port must be an integer from 0 to 65535');
      const file = path.resolve(host.cwd, values.manifest);
      let manifest: Record<string, any>;
      try {
        manifest = JSON.parse(readFileSync(file, 'utf8')) as Record<string, any>;
      } catch (err) {
        host.stderr(`tessera: cannot read the manifest ${values.manifest}: ${(err as Error).message}\n`);
        return 1;
      }
      const dir = path.dirname(file);
      const serviceData = path.resolve(dir, (manifest.dataDir as string | undefined) ?? '../data');
      const agent = (manifest.plugins?.agent ?? {}) as { module?: string; options?: Record<string, any> };
      const options = { ...agent.options };
      const configuredQueue = options.workers?.queueDir as string | undefined;
      const queueDir =
        typeof values.queue === 'string'
          ? path.resolve(host.cwd, values.queue)
          : configuredQueue
            ? path.resolve(host.cwd, configuredQueue)
            : defaultQueueDir(serviceData);
      const id = typeof values['worker-id'] === 'string' ? values['worker-id'] : `${os.hostname()}-${process.pid}`;
      options.workers = { ...options.workers, queueDir, tiers: [] };
      options.worker = { id, tiers, concurrency };
      const dataDir = typeof values['data-dir'] === 'string' ? path.resolve(host.cwd, values['data-dir']) : `${serviceData}-worker-${os.hostname()}`;
      const workerManifest: Record<string, unknown> = {
        ...manifest,
        name: `${String(manifest.name ?? 'tessera')}-worker`,
        listeners: [{ name: 'worker', port, plugins: [] }],
        plugins: { ...manifest.plugins, agent: { ...agent, options } },
      };
      delete workerManifest.dataDir;
      host.stderr(`tessera worker ${id}: tiers ${tiers.join(',')}, queue ${queueDir}, store ${dataDir}\n`);
      return host.serve(workerManifest, { dir, label: `worker --tiers ${tiers.join(',')} (${values.manifest})`, dataDir });
    },
  },
]);
