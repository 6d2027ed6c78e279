import { z } from 'tessera-runtime/plugin';

const positiveInt = (field: string, max: number) =>
  z
    .number({
      error: (issue) => (issue.input === undefined ? `${field} is required` : `${field} must be a positive integer, got ${JSON.stringify(issue.input)}`),
    })
    .int({ error: (issue) => `${field} must be a positive integer, got ${JSON.stringify(issue.input)}` })
    .min(1, { error: (issue) => `${field} must be a positive integer, got ${JSON.stringify(issue.input)}` })
    .max(max, { error: `${field} must be at most ${max}` });

const boundedInt = (field: string, min: number, max: number) =>
  z
    .number()
    .int({ error: `${field} must be a whole number` })
    .min(min, { error: `${field} must be at least ${min}` })
    .max(max, { error: `${field} must be at most ${max}` });

function isHttpUrl(value: string): boolean {
  try {
    const url = new URL(value);
    return url.protocol === 'http:' || url.protocol === 'https:';
  } catch {
    return false;
  }
}

const seed = z.string().refine(isHttpUrl, { error: (issue) => `${JSON.stringify(issue.input)} is not an absolute http(s) URL` });

/** Content families a crawl may index; anything else is skipped (`content_type`). */
export const contentKinds = ['html', 'text', 'json'] as const;
export type ContentKind = (typeof contentKinds)[number];

/**
 * What one crawl does (`config` of a schedule). Every field but `seeds` has a default, so a stored
 * schedule always carries its full configuration.
 */
export const crawlConfigSchema = z.strictObject({
  /** Where the crawl starts: absolute http(s) URLs. */
  seeds: z
    .array(seed, {
      error: (issue) =>
        issue.input === undefined ? 'config.seeds is required: an array of http(s) URLs to start from' : 'config.seeds must be an array of http(s) URLs',
    })
    .min(1, { error: 'config.seeds needs at least one http(s) URL' })
    .max(1000, { error: 'config.seeds takes at most 1000 URLs' }),
  /** Pages fetched per run, at most. @default 100 */
  maxPages: positiveInt('maxPages', 1_000_000).default(100),
  /** Links followed from a seed (seeds are depth 0). @default 5 */
  maxDepth: boundedInt('maxDepth', 0, 100).default(5),
  /** Follow only links to the origin (scheme, host, port) of the seed they were found from. @default true */
  sameOrigin: z.boolean().default(true),
  /** Glob patterns (picomatch) on the URL path: when given, only matching pages are fetched (seeds always are). */
  include: z.array(z.string().min(1)).max(100).default([]),
  /** Glob patterns on the URL path of pages never fetched. */
  exclude: z.array(z.string().min(1)).max(100).default([]),
  /** Requests in flight at once, all hosts together. @default 4 */
  concurrency: boundedInt('concurrency', 1, 64).default(4),
  /** Requests in flight at once to one host. @default 1 */
  perHostConcurrency: boundedInt('perHostConcurrency', 1, 16).default(1),
  /** Pause between two requests to one host, in ms; a robots.txt `Crawl-delay` can make it longer. @default 250 */
  politenessDelayMs: boundedInt('politenessDelayMs', 0, 600_000).default(250),
  /** One request, headers and body, in ms. @default 10000 */
  requestTimeoutMs: boundedInt('requestTimeoutMs', 100, 300_000).default(10_000),
  /** Largest page read, in bytes; a larger one is skipped (`too_large`). @default 5242880 */
  maxPageBytes: boundedInt('maxPageBytes', 1024, 100 * 1024 * 1024).default(5 * 1024 * 1024),
  /** Redirects followed per page. @default 5 */
  maxRedirects: boundedInt('maxRedirects', 0, 20).default(5),
  /** Content families indexed. @default ["html", "text", "json"] */
  contentTypes: z
    .array(z.enum(contentKinds))
    .min(1)
    .default([...contentKinds]),
  /** Obey robots.txt (rules, `Crawl-delay`, `Sitemap`). @default true */
  respectRobots: z.boolean().default(true),
  /** Add the URLs of the sitemaps robots.txt names (depth 1). @default true */
  sitemaps: z.boolean().default(true),
  /** `keep` paths as linked, `strip` a trailing slash (`/a/` -> `/a`), or `add` one to paths without an extension. @default "keep" */
  trailingSlash: z.enum(['keep', 'strip', 'add']).default('keep'),
});

export type CrawlConfig = z.output<typeof crawlConfigSchema>;

const indexName = z.string().min(1).max(200);

/** Where crawled pages go. Absent, or `enabled: false`: pages are crawled and tracked, not indexed. */
export const autoIndexSchema = z
  .strictObject({
    /** @default true */
    enabled: z.boolean().default(true),
    /** The target index, created on first use with the crawler's mappings. */
    index: indexName.optional(),
    /** A remote Tessera's search listener; absent: the search plugin of this runtime. */
    engineUrl: z.url({ protocol: /^https?$/, error: 'autoIndex.engineUrl must be an absolute http(s) URL' }).optional(),
    /** Where the remote bulk API (`POST /v1/bulk`) is served when not on `engineUrl` (the fleet's bulk listener, 3852). */
    bulkUrl: z.url({ protocol: /^https?$/, error: 'autoIndex.bulkUrl must be an absolute http(s) URL' }).optional(),
  })
  .refine((a) => !a.enabled || a.index !== undefined, { error: 'autoIndex.index is required when autoIndex is enabled', path: ['index'] });

export type AutoIndex = z.output<typeof autoIndexSchema>;

const cadence = {
  /** Croner syntax (5 or 6 fields, `@daily` and kin). */
  cron: z.string().min(1).max(200).optional(),
  /** `<n>s|m|h|d` (`"6h"`). */
  interval: z.string().min(1).max(50).optional(),
  /** IANA zone of `cron`. @default UTC */
  timezone: z.string().min(1).max(100).optional(),
  /** A run missed while the process was down: run it once at start, or skip it. @default "once" */
  catchUp: z.enum(['once', 'skip']).optional(),
};

/** `POST /v1/schedules` (seed 000's Schedule create input, with the crawler's own additions). */
export const scheduleCreateBody = z.strictObject({
  name: z.string().min(1).max(200),
  ...cadence,
  paused: z.boolean().default(false),
  config: crawlConfigSchema,
  autoIndex: autoIndexSchema.optional(),
});

/** `PATCH /v1/schedules/{id}`: pause, resume, change the cadence, the name or the configuration (replaced whole). */
export const schedulePatchBody = z.strictObject({
  name: z.string().min(1).max(200).optional(),
  ...cadence,
  paused: z.boolean().optional(),
  config: crawlConfigSchema.optional(),
  autoIndex: autoIndexSchema.nullable().optional(),
});

/** What a schedule's job receives (the schedule's input, copied when it fires). */
export interface CrawlInput {
  name: string;
  config: CrawlConfig;
  autoIndex?: AutoIndex;
}
