import { definePlugin } from 'tessera-runtime/plugin';
import { SEARCH_SERVICE } from '../search/index.js';
import { errors } from './errors.js';
import { scannerOptionsSchema } from './options.js';
import { Roots } from './roots.js';
import { registerRoutes } from './routes.js';
import { ScanRunner, type ScanJobInput } from './scan-runner.js';
import { ScanStore } from './scan-store.js';

/**
 * The change scanner (seed 000's port 3853): folder, file and database change-data-capture into an
 * index. Scans are durable jobs; their progress is an event feed; their history is kept per tenant.
 * Documents go to this runtime's search plugin, or to a remote engine's bulk API (`engineUrl`).
 */
export default definePlugin({
  name: 'scanner',
  version: '0.1.0',
  dependsOn: [{ name: 'search', version: '^0.1.0' }],
  options: scannerOptionsSchema,
  errors,
  async setup(ctx) {
    await ctx.store.format(1);
    const store = new ScanStore(ctx.store);
    // Relative roots are read from the manifest's folder, like every other path in it.
    const manifestDir = ctx.app.manifestFile.startsWith('(') ? process.cwd() : ctx.app.manifestFile.replace(/[/\\][^/\\]*$/, '');
    const roots = new Roots(ctx.config.roots, manifestDir);
    const runner = new ScanRunner({
      store,
      events: ctx.events,
      jobs: ctx.jobs,
      search: ctx.container.resolve(SEARCH_SERVICE),
      outbound: ctx.outbound,
      roots,
      options: ctx.config,
      log: ctx.log,
    });
    ctx.jobs.define<ScanJobInput>('scan', (job) => runner.execute(job), {
      concurrency: () => ctx.config.maxActiveScans,
      onInterrupt: 'retry',
    });
    registerRoutes(ctx, { store, runner, roots });
    ctx.onStart(() => runner.reconcile());
  },
});

/** The two ways a scan feeds an index, shared with the crawler (which feeds indexes the same way). */
export { InProcessSink, type IndexShape, type IndexSink, type SinkResult } from './index-sink.js';
export { HttpSink, type HttpSinkOptions } from './http-sink.js';
