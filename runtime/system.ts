import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { KernelRunner } from '../kernels/src/index.js';
import { runtimeVersion } from './version.js';

const builtinRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../plugins');

export interface SystemInput {
  name: string;
  startedAt: number;
  listeners: Array<{ name: string; host: string; port: number; url: string; plugins: readonly string[]; auth: boolean }>;
  plugins: Array<{
    name: string;
    version: string;
    source: string;
    dependsOn: string[];
    permissions: string[];
    jobs: { queued: number; running: number; schedules: number };
    events: { firstId: number; lastId: number };
  }>;
  store: { dir: string; sizeBytes: number; formatVersion: number };
  kernels: KernelRunner | undefined;
  configuredThreads: number | undefined;
}

/**
 * `GET /v1/system`: what the control plane shows on its fleet screen. Plugin sources are told as
 * `builtin` or the file they were loaded from; the data directory is included because an operator
 * needs it, and the route requires `system:read` where auth is on.
 */
export function systemBody(input: SystemInput) {
  const runner = input.kernels;
  const allocator = runner && !runner.closed ? runner.allocator.stats() : undefined;
  return {
    name: input.name,
    version: runtimeVersion,
    node: process.version,
    pid: process.pid,
    startedAt: new Date(input.startedAt).toISOString(),
    uptimeMs: Date.now() - input.startedAt,
    listeners: input.listeners,
    plugins: input.plugins.map((p) => ({
      ...p,
      source: p.source.startsWith(builtinRoot + path.sep) ? 'builtin' : p.source,
    })),
    jobs: input.plugins.reduce(
      (sum, p) => ({ queued: sum.queued + p.jobs.queued, running: sum.running + p.jobs.running, schedules: sum.schedules + p.jobs.schedules }),
      { queued: 0, running: 0, schedules: 0 },
    ),
    store: input.store,
    kernels:
      runner && !runner.closed
        ? { started: true, threads: runner.threads, memoryBytes: runner.memory.byteLength, ...(allocator ? { allocator } : {}) }
        : { started: false, ...(input.configuredThreads !== undefined ? { threads: input.configuredThreads } : {}) },
  };
}
