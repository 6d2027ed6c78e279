/**
 * Keeps each index's mentions current (mentions.ts): documents as they are written and deleted,
 * and every document again after the index's entities change, as a `link-mentions` job of the
 * graph plugin (one per index at a time; entity writes during a run queue one more pass).
 */
import type { JobsService, Logger } from 'tessera-runtime/plugin';
import type { SearchService } from '../search/index.js';
import type { GraphStore } from './graph-store.js';
import type { Mentions } from './mentions.js';

export const LINK_JOB = 'link-mentions';
const batch = 500;

export class MentionLinker {
  private readonly queues = new Map<string, Promise<unknown>>();
  /** Indexes whose entities changed since their relink started. */
  private readonly dirty = new Set<string>();
  private readonly running = new Set<string>();

  constructor(
    private readonly deps: {
      search: SearchService;
      graphs: GraphStore;
      mentions: Mentions;
      jobs: JobsService;
      log: Logger;
      enabled: (tenant: string, index: string) => boolean;
    },
  ) {
    deps.jobs.define<{ tenant: string; index: string }, { documents: number }>(
      LINK_JOB,
      async (job) => {
        const { tenant, index } = job.input;
        const key = `${tenant}\u0000${index}`;
        let documents = 0;
        this.running.add(key);
        try {
          do {
            this.dirty.delete(key);
            const ids = this.deps.search.documentIds(tenant, index);
            documents = ids.length;
            for (let i = 0; i < ids.length; i += batch) {
              if (job.signal.aborted) throw new Error('stopped');
              await this.documents(tenant, index, ids.slice(i, i + batch));
              job.progress(Math.min(1, (i + batch) / Math.max(1, ids.length)), { done: Math.min(ids.length, i + batch), total: ids.length });
            }
          } while (this.dirty.has(key));
        } finally {
          this.running.delete(key);
        }
        return { documents };
      },
      // A relink cut short runs again whole at the next start.
      { concurrency: 1, onInterrupt: 'retry' },
    );
  }

  /** Links the documents given, as they are now (a deleted one loses its mentions). */
  documents(tenant: string, index: string, ids: readonly string[]): Promise<void> {
    const key = `${tenant}\u0000${index}`;
    const run = (this.queues.get(key) ?? Promise.resolve()).then(async () => {
      if (!this.deps.enabled(tenant, index)) return;
      const graph = this.deps.graphs.graph(tenant, index);
      const docs = ids.map((id) => ({ id, source: this.deps.search.getDocument(tenant, index, id) }));
      await this.deps.mentions.update(tenant, index, graph, docs);
    });
    this.queues.set(
      key,
      run.catch((err: unknown) => this.deps.log.warn({ err, index }, 'document mentions not linked')),
    );
    return run;
  }

  /** Queues a pass over every document of the index (its entities changed). */
  async relink(tenant: string, index: string): Promise<void> {
    const key = `${tenant}\u0000${index}`;
    if (this.running.has(key)) {
      this.dirty.add(key);
      return;
    }
    await this.deps.jobs.enqueue(LINK_JOB, { tenant, index }, { tenant, key, keyScope: 'active' });
  }
}
