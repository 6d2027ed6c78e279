import { definePlugin } from 'tessera-runtime/plugin';
import { SEARCH_SERVICE } from '../search/index.js';
import type { CrawlInput } from './crawl-config.js';
import { CheckpointStore } from './crawl-checkpoint.js';
import { CrawlRunner } from './crawl-runner.js';
import { errors } from './errors.js';
import { crawlerOptionsSchema } from './options.js';
import { PageStore } from './page-store.js';
import { CRAWL_JOB, registerRoutes } from './routes.js';

/**
 * The crawler and scheduler (seed 000's port 3851): recurring site crawls on `ctx.jobs` schedules
 * that feed an index, in-process through the search plugin or over HTTP to another engine's bulk API.
 */
export default definePlugin({
  name: 'crawler',
  version: '0.1.0',
  dependsOn: [{ name: 'search', version: '^0.1.0' }],
  options: crawlerOptionsSchema,
  errors,
  async setup(ctx) {
    await ctx.store.format(1);
    const pages = new PageStore(ctx.store);
    const checkpoints = new CheckpointStore(ctx.store);
    const runner = new CrawlRunner({
      search: ctx.container.resolve(SEARCH_SERVICE),
      outbound: ctx.outbound,
      pages,
      checkpoints,
      options: ctx.config,
      log: ctx.log,
    });
    // A crawl cut short by a crash or a shutdown is queued again and carries on from its last
    // checkpoint (three crashes in a row fail it, reason `interrupted`).
    ctx.jobs.define<CrawlInput>(CRAWL_JOB, (job) => runner.execute(job), { concurrency: () => ctx.config.maxActiveCrawls, onInterrupt: 'retry' });
    registerRoutes(ctx, { pages, checkpoints });
    // Checkpoints of jobs that will not resume (they ended in a window a crash cut, or retention
    // deleted them) are dropped; running jobs are still `running` here and keep theirs.
    ctx.onStart(async () => {
      const dropped = await checkpoints.sweep((id) => {
        const state = ctx.jobs.get(id)?.state;
        return state === 'queued' || state === 'running';
      });
      if (dropped > 0) ctx.log.info({ dropped }, 'dropped crawl checkpoints of finished jobs');
    });
  },
});
