import { z } from 'zod';

/**
 * The manifest's schema. It validates manifests at load time and is emitted as
 * docs/manifest.schema.json, so editors can check a manifest before Tessera ever reads it.
 */

const tierSchema = z
  .object({
    concurrency: z.number().int().min(1).describe('Requests of this tier served at once.'),
    queue: z.number().int().min(0).describe('Requests allowed to wait for a slot; beyond it the answer is 429.'),
    maxWaitMs: z.number().int().min(1).optional().describe('Longest a request waits in the queue for a slot before it is answered 429; default 10000.'),
  })
  .strict();

export const defaultThrottle = {
  light: { concurrency: 256, queue: 1024 },
  standard: { concurrency: 32, queue: 256 },
  heavy: { concurrency: 4, queue: 32 },
} as const;

export const defaultJobs = {
  concurrency: 8,
  retentionDays: 30,
  maxFinished: 10_000,
} as const;

export const defaultEvents = {
  retentionDays: 7,
  maxEvents: 100_000,
} as const;

export const defaultEgress = {
  allowPrivate: false,
  timeoutMs: 30_000,
  maxRedirects: 5,
  maxBytes: 50 * 1024 * 1024,
} as const;

export const defaultLimits = {
  bodyBytes: 1_048_576,
  shutdownTimeoutMs: 10_000,
} as const;

const throttleSchema = z
  .object({
    light: tierSchema.optional(),
    standard: tierSchema.optional(),
    heavy: tierSchema.optional(),
  })
  .strict();

/** Cross-origin resource sharing for one listener: off unless the manifest says which origins. */
export const corsSchema = z
  .object({
    origins: z
      .union([
        z.array(z.string().regex(/^https?:\/\/[^/\s]+$/, 'an origin such as "https://ui.example.com" (scheme, host, optional port; no path)')).min(1),
        z.literal('*'),
      ])
      .describe('Origins whose pages may call this listener, exactly as browsers send them; "*" for any (not with credentials).'),
    credentials: z.boolean().optional().describe('Let those pages send cookies (Access-Control-Allow-Credentials); default false.'),
    methods: z
      .array(z.string().regex(/^[A-Z]+$/))
      .optional()
      .describe('Methods allowed cross-origin; default GET, HEAD, POST, PUT, PATCH, DELETE.'),
    headers: z
      .array(z.string().regex(/^[A-Za-z0-9-]+$/))
      .optional()
      .describe('Request headers allowed; default content-type, x-api-key, x-tenant, x-request-id, x-csrf-token, last-event-id.'),
    exposeHeaders: z
      .array(z.string().regex(/^[A-Za-z0-9-]+$/))
      .optional()
      .describe('Response headers pages may read; default x-request-id, retry-after.'),
    maxAgeSeconds: z.number().int().min(0).max(86_400).optional().describe('How long browsers may cache a preflight answer; default 600.'),
  })
  .strict()
  .refine((c) => !(c.origins === '*' && c.credentials), {
    message: 'origins "*" cannot be combined with credentials: true (browsers refuse it); list the origins',
    path: ['credentials'],
  });

export const listenerSchema = z
  .object({
    name: z.string().regex(/^[a-z][a-z0-9_-]*$/, 'lowercase letters, digits, "-" and "_", starting with a letter'),
    host: z.string().min(1).optional().describe('Address to bind; default 127.0.0.1.'),
    port: z.number().int().min(0).max(65535).describe('TCP port; 0 picks a free one (tests).'),
    plugins: z.array(z.string().min(1)).describe('Plugins whose routes this listener serves.'),
    metricsPath: z
      .union([z.string().regex(/^\//, 'a path starting with "/"'), z.literal(false)])
      .optional()
      .describe('Where Prometheus metrics are served; default "/metrics"; false turns it off.'),
    auth: z.boolean().optional().describe('Enforce route permissions here; default true when `auth.provider` is set.'),
    allowedHosts: z
      .union([z.array(z.string().min(1)), z.literal(true)])
      .optional()
      .describe(
        'Host header values this listener answers (any port); ".example.com" also admits its subdomains; true admits any. Default on a loopback address: localhost, 127.0.0.1 and [::1]; elsewhere: any.',
      ),
    cors: corsSchema.optional().describe('Cross-origin access for browser pages served elsewhere; absent (the default): same-origin only.'),
  })
  .strict();

export const pluginEntrySchema = z
  .object({
    module: z.string().min(1).optional().describe('A path relative to the manifest, or an npm package name. Absent: a built-in plugin.'),
    options: z.record(z.string(), z.unknown()).optional().describe("Validated by the plugin's own options schema."),
    override: z
      .boolean()
      .optional()
      .describe('Set true when "module" loads a plugin that takes a built-in\'s name on purpose; without it that is plugin_name_conflict.'),
  })
  .strict();

export const manifestSchema = z
  .object({
    $schema: z.string().optional(),
    name: z.string().min(1),
    dataDir: z.string().min(1).optional().describe('LMDB directory, relative to the manifest file; default "../data". `--data-dir` overrides.'),
    listeners: z.array(listenerSchema).min(1),
    plugins: z.record(z.string().regex(/^[a-z@][a-z0-9@/._-]*$/, 'a plugin name'), pluginEntrySchema).default({}),
    kernels: z
      .object({
        threads: z.number().int().min(0).max(64).optional().describe('Kernel worker threads; default min(2, CPU count); 0 runs every kernel call inline.'),
      })
      .strict()
      .optional(),
    limits: z
      .object({
        bodyBytes: z.number().int().min(1).optional().describe(`Largest request body in bytes; default ${defaultLimits.bodyBytes}.`),
        shutdownTimeoutMs: z
          .number()
          .int()
          .min(0)
          .optional()
          .describe(`How long shutdown waits for in-flight requests; default ${defaultLimits.shutdownTimeoutMs}.`),
        throttle: throttleSchema.optional(),
      })
      .strict()
      .optional(),
    jobs: z
      .object({
        concurrency: z
          .number()
          .int()
          .min(1)
          .max(1024)
          .optional()
          .describe(`Jobs of one plugin running at once in this process, all job names together; default ${defaultJobs.concurrency}.`),
        retentionDays: z
          .number()
          .min(0)
          .optional()
          .describe(`Finished jobs (completed, failed, cancelled, interrupted) older than this are deleted; default ${defaultJobs.retentionDays}.`),
        maxFinished: z
          .number()
          .int()
          .min(0)
          .optional()
          .describe(`At most this many finished jobs are kept per plugin, the oldest deleted first; default ${defaultJobs.maxFinished}.`),
      })
      .strict()
      .optional()
      .describe('Durable jobs and schedules (ctx.jobs).'),
    events: z
      .object({
        retentionDays: z
          .number()
          .min(0)
          .optional()
          .describe(
            `Event log entries older than this are deleted; default ${defaultEvents.retentionDays}. A reader that asks for deleted entries gets a gap marker.`,
          ),
        maxEvents: z.number().int().min(1).optional().describe(`At most this many entries are kept per plugin; default ${defaultEvents.maxEvents}.`),
      })
      .strict()
      .optional()
      .describe("Each plugin's persisted event log (ctx.events); a plugin may set its own retention."),
    egress: z
      .object({
        allowPrivate: z
          .boolean()
          .optional()
          .describe(
            "Let API callers' destinations (crawl seeds, webhooks, remote images) be loopback, private or link-local addresses; default false. Endpoints written in the manifest (embedding and model servers) are always allowed.",
          ),
        allowHosts: z
          .array(z.string().min(1))
          .optional()
          .describe('Destinations allowed whatever their address: host, host:port, *.example.com, an IP or a CIDR range.'),
        timeoutMs: z.number().int().min(1).optional().describe(`Limit of one outbound call, headers and body; default ${defaultEgress.timeoutMs}.`),
        maxRedirects: z
          .number()
          .int()
          .min(0)
          .max(20)
          .optional()
          .describe(`Redirects followed, each checked like the first URL; default ${defaultEgress.maxRedirects}.`),
        maxBytes: z.number().int().min(1).optional().describe(`Largest response body read; default ${defaultEgress.maxBytes}.`),
      })
      .strict()
      .optional()
      .describe('Policy of calls leaving the process (ctx.outbound).'),
    auth: z
      .object({
        provider: z.string().min(1).describe('The plugin that authenticates requests, e.g. "rbac".'),
      })
      .strict()
      .optional(),
  })
  .strict();

export type ManifestInput = z.input<typeof manifestSchema>;
export type ManifestData = z.output<typeof manifestSchema>;
export type ListenerConfig = z.output<typeof listenerSchema>;
export type ThrottleTierConfig = z.output<typeof tierSchema>;
export type ThrottleTier = keyof typeof defaultThrottle;
