import { definePlugin } from 'tessera-runtime/plugin';
import { SEARCH_SERVICE } from '../search/index.js';
import type { CrawlInput } from './crawl-config.js';
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
    const runner = new CrawlRunner({ search: ctx.container.resolve(SEARCH_SERVICE), outbound: ctx.outbound, pages, options: ctx.config, log: ctx.log });
    // A crawl interrupted by a crash is not resumed: it is failed (reason `interrupted`) and the
    // schedule's next tick starts afresh, re-using what the page states remember.
    ctx.jobs.define<CrawlInput>(CRAWL_JOB, (job) => runner.execute(job), { concurrency: () => ctx.config.maxActiveCrawls, onInterrupt: 'fail' });
    registerRoutes(ctx, { pages });
  },
});
