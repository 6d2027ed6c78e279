import { z } from 'tessera-runtime/plugin';

/** Options of the `crawler` plugin (manifest `plugins.crawler.options`). */
export const crawlerOptionsSchema = z.strictObject({
  /**
   * Crawl seeds, the pages they link to, and `autoIndex.engineUrl` may be loopback or private
   * addresses (an intranet, a fleet on one host, tests). Off: only public addresses, checked after
   * DNS resolution and on every redirect. @default false
   */
  allowPrivateAddresses: z.boolean().default(false),
  /** Hosts allowed whatever their address (`host`, `host:port`, `*.domain`, an IP or a CIDR range). @default [] */
  allowHosts: z.array(z.string().min(1)).default([]),
  /** Crawls running at once in this process. @default 4 */
  maxActiveCrawls: z.number().int().min(1).max(64).default(4),
  /**
   * Documents sent to the index per batch, and pages visited between two checkpoints of a running
   * crawl at most (what a crash makes it fetch again). @default 100
   */
  batchDocs: z.number().int().min(1).max(10_000).default(100),
  /** Time between two checkpoints of a running crawl at most, in ms. @default 10000 */
  checkpointIntervalMs: z.number().int().min(100).max(600_000).default(10_000),
  /** Errors listed on a job (all are counted). @default 100 */
  maxReportedErrors: z.number().int().min(0).max(10_000).default(100),
  /** The longest `Crawl-delay` a robots.txt can impose, in ms; a longer one is capped. @default 30000 */
  maxCrawlDelayMs: z.number().int().min(0).max(600_000).default(30_000),
  /** Sent instead of the runtime's `Tessera/<version>`; robots.txt groups are matched on it. */
  userAgent: z.string().min(1).max(200).optional(),
  /** Sent as `x-api-key` to a remote engine (`autoIndex.engineUrl`) that has auth on. */
  engineApiKey: z.string().min(1).optional(),
});

export type CrawlerOptions = z.output<typeof crawlerOptionsSchema>;
