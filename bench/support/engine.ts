import 'reflect-metadata';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { createKernelRunner, type KernelRunner } from '../../kernels/src/index.js';
import { SearchEngine } from '../../plugins/search/index/search-engine.js';
import { createLogger } from '../../runtime/logger.js';
import { Store } from '../../runtime/store.js';

export interface BenchEngine {
  engine: SearchEngine;
  runner: KernelRunner;
  /** Closes the engine, the kernels and the store, and deletes the temporary data directory. */
  close(): Promise<void>;
}

/**
 * The search engine in-process, as the plugin runs it (LMDB store in a temporary directory, one
 * kernel thread so results do not depend on the machine's cores), without HTTP in the way.
 */
export function openBenchEngine(name: string): BenchEngine {
  const dir = mkdtempSync(path.join(tmpdir(), `tessera-bench-${name}-`));
  const store = Store.open(path.join(dir, 'data'));
  const runner = createKernelRunner({ threads: 1 });
  const engine = new SearchEngine({ store: store.namespace('search'), kernels: () => runner, log: createLogger({ level: 'silent' }) });
  engine.load();
  return {
    engine,
    runner,
    async close() {
      engine.close();
      await runner.close();
      await store.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
