import { readFileSync } from 'node:fs';
import path from 'node:path';
import { findNodeAtLocation, parseTree, printParseErrorCode, type Node, type ParseError } from 'jsonc-parser';
import { TesseraError, type FieldIssue } from './errors.js';
import {
  defaultEgress,
  defaultEvents,
  defaultJobs,
  defaultLimits,
  defaultThrottle,
  manifestSchema,
  type ListenerConfig,
  type ManifestData,
  type ThrottleTier,
  type ThrottleTierConfig,
} from './manifest-schema.js';
import { formatPath, locatedIssuesOf } from './validation.js';

export interface ResolvedListener extends ListenerConfig {
  host: string;
  metricsPath: string | false;
  auth: boolean;
  /** Lower-cased host names (no port) this listener answers, or true for any. */
  allowedHosts: string[] | true;
}

export interface ResolvedManifest {
  /** Absolute path of the manifest file, or a label for manifests built in code. */
  file: string;
  /** Directory that relative paths (dataDir, plugin modules) resolve against. */
  dir: string;
  name: string;
  dataDir: string;
  listeners: ResolvedListener[];
  plugins: ManifestData['plugins'];
  kernels: { threads?: number };
  limits: {
    bodyBytes: number;
    shutdownTimeoutMs: number;
    throttle: Record<ThrottleTier, ThrottleTierConfig>;
  };
  /** Settings of every plugin's job runner. */
  jobs: { concurrency: number; retentionMs: number; maxFinished: number; cancelWaitMs: number };
  /** Default retention of every plugin's event log. */
  events: { maxAgeMs: number; maxEvents: number };
  /** Policy and limits of outbound calls (ctx.outbound). */
  egress: { allowPrivate: boolean; allowHosts: string[]; timeoutMs: number; maxRedirects: number; maxBytes: number };
  auth?: { provider: string };
}

/** A manifest problem, always naming the file, the JSON path and what was expected. */
export class ManifestError extends TesseraError {
  constructor(code: string, message: string, details?: { file: string; issues?: FieldIssue[] }) {
    super(code, 500, message, { details });
    this.name = 'ManifestError';
  }
}

export interface LoadManifestOptions {
  /** Overrides the manifest's dataDir (the CLI's `--data-dir`); resolved against the working directory. */
  dataDir?: string;
}

export function loadManifest(file: string, options: LoadManifestOptions = {}): ResolvedManifest {
  const absolute = path.resolve(file);
  let text: string;
  try {
    text = readFileSync(absolute, 'utf8');
  } catch (cause) {
    throw new ManifestError('manifest_not_found', `${file}: cannot read manifest (${(cause as NodeJS.ErrnoException).code ?? String(cause)})`, {
      file: absolute,
    });
  }
  return parseManifest(text, absolute, options);
}

export function parseManifest(text: string, file: string, options: LoadManifestOptions = {}): ResolvedManifest {
  const errors: ParseError[] = [];
  const tree = parseTree(text, errors, { allowTrailingComma: false, disallowComments: true });
  if (errors.length > 0 || !tree) {
    const first = errors[0];
    const where = first ? ` at ${lineColumn(text, first.offset)}` : '';
    const what = first ? printParseErrorCode(first.error) : 'empty document';
    throw new ManifestError('manifest_parse_error', `${file}: not valid JSON: ${what}${where}`, { file });
  }
  const duplicate = findDuplicateKey(tree);
  if (duplicate) {
    const issue = { path: formatPath(duplicate.path), message: `duplicate key "${duplicate.key}"` };
    const code = duplicate.path.length === 1 && duplicate.path[0] === 'plugins' ? 'plugin_duplicate' : 'manifest_invalid';
    throw new ManifestError(code, `${file}: ${issue.path}: ${issue.message} at ${lineColumn(text, duplicate.offset)}`, { file, issues: [issue] });
  }
  return resolveManifest(JSON.parse(text), { file, dir: path.dirname(file), text, tree, dataDir: options.dataDir });
}

interface ResolveContext {
  file: string;
  dir: string;
  dataDir?: string;
  text?: string;
  tree?: Node;
}

/** Validate manifest data (from a file or built in code) and fill in every default. */
export function resolveManifest(input: unknown, context: ResolveContext): ResolvedManifest {
  const { file } = context;
  const parsed = manifestSchema.safeParse(input);
  if (!parsed.success) {
    const located = locatedIssuesOf(parsed.error);
    throw invalid(
      file,
      located.map((l) => l.issue),
      located.map((l) => l.at),
      context,
    );
  }
  const data = parsed.data;

  const semantic: Array<{ issue: FieldIssue; at: PropertyKey[] }> = [];
  const names = new Set<string>();
  const ports = new Set<number>();
  data.listeners.forEach((listener, i) => {
    if (names.has(listener.name))
      semantic.push({ at: ['listeners', i, 'name'], issue: { path: `listeners[${i}].name`, message: `duplicate listener name "${listener.name}"` } });
    names.add(listener.name);
    if (listener.port !== 0) {
      if (ports.has(listener.port))
        semantic.push({ at: ['listeners', i, 'port'], issue: { path: `listeners[${i}].port`, message: `port ${listener.port} is used by another listener` } });
      ports.add(listener.port);
    }
    if (listener.metricsPath === '/health' || listener.metricsPath === '/openapi.json') {
      semantic.push({
        at: ['listeners', i, 'metricsPath'],
        issue: { path: `listeners[${i}].metricsPath`, message: `"${listener.metricsPath}" is taken by the runtime; choose another path` },
      });
    }
    if (listener.auth === true && data.auth === undefined) {
      semantic.push({
        at: ['listeners', i, 'auth'],
        issue: { path: `listeners[${i}].auth`, message: 'auth is on but no "auth.provider" is set to authenticate requests' },
      });
    }
    if (listener.cors?.origins === '*' && !(listener.auth ?? data.auth !== undefined)) {
      // The origin check is what keeps other sites off a listener without auth; "*" would lift it for every page on the web.
      semantic.push({
        at: ['listeners', i, 'cors', 'origins'],
        issue: {
          path: `listeners[${i}].cors.origins`,
          message: '"*" on a listener with auth off would let any web page use it; list the origins of your UI, or turn auth on',
        },
      });
    }
    listener.plugins.forEach((plugin, j) => {
      if (!(plugin in data.plugins)) {
        semantic.push({
          at: ['listeners', i, 'plugins', j],
          issue: { path: `listeners[${i}].plugins[${j}]`, message: `expected a plugin named in "plugins", got "${plugin}"` },
        });
      }
    });
  });
  if (data.auth && !(data.auth.provider in data.plugins)) {
    semantic.push({ at: ['auth', 'provider'], issue: { path: 'auth.provider', message: `expected a plugin named in "plugins", got "${data.auth.provider}"` } });
  }
  if (semantic.length > 0) {
    throw invalid(
      file,
      semantic.map((s) => s.issue),
      semantic.map((s) => s.at),
      context,
    );
  }

  const dataDir = context.dataDir !== undefined ? path.resolve(context.dataDir) : path.resolve(context.dir, data.dataDir ?? '../data');
  const authOn = data.auth !== undefined;
  return {
    file,
    dir: context.dir,
    name: data.name,
    dataDir,
    listeners: data.listeners.map((l) => ({
      ...l,
      host: l.host ?? '127.0.0.1',
      metricsPath: l.metricsPath ?? '/metrics',
      auth: l.auth ?? authOn,
      allowedHosts: resolveAllowedHosts(l.allowedHosts, l.host ?? '127.0.0.1'),
    })),
    plugins: data.plugins,
    kernels: data.kernels ?? {},
    limits: {
      bodyBytes: data.limits?.bodyBytes ?? defaultLimits.bodyBytes,
      shutdownTimeoutMs: data.limits?.shutdownTimeoutMs ?? defaultLimits.shutdownTimeoutMs,
      throttle: {
        light: data.limits?.throttle?.light ?? { ...defaultThrottle.light },
        standard: data.limits?.throttle?.standard ?? { ...defaultThrottle.standard },
        heavy: data.limits?.throttle?.heavy ?? { ...defaultThrottle.heavy },
      },
    },
    jobs: {
      concurrency: data.jobs?.concurrency ?? defaultJobs.concurrency,
      retentionMs: (data.jobs?.retentionDays ?? defaultJobs.retentionDays) * 86_400_000,
      maxFinished: data.jobs?.maxFinished ?? defaultJobs.maxFinished,
      cancelWaitMs: 5000,
    },
    events: {
      maxAgeMs: (data.events?.retentionDays ?? defaultEvents.retentionDays) * 86_400_000,
      maxEvents: data.events?.maxEvents ?? defaultEvents.maxEvents,
    },
    egress: {
      allowPrivate: data.egress?.allowPrivate ?? defaultEgress.allowPrivate,
      allowHosts: data.egress?.allowHosts ?? [],
      timeoutMs: data.egress?.timeoutMs ?? defaultEgress.timeoutMs,
      maxRedirects: data.egress?.maxRedirects ?? defaultEgress.maxRedirects,
      maxBytes: data.egress?.maxBytes ?? defaultEgress.maxBytes,
    },
    auth: data.auth,
  };
}

function invalid(file: string, issues: FieldIssue[], paths: PropertyKey[][], context: ResolveContext): ManifestError {
  const lines = issues.map((issue, i) => {
    const where = locate(context, paths[i] ?? []);
    return `${issue.path}: ${issue.message}${where ? ` (${where})` : ''}`;
  });
  return new ManifestError('manifest_invalid', `${file}: ${lines.join('; ')}`, { file, issues });
}

function locate(context: ResolveContext, at: PropertyKey[]): string | undefined {
  if (!context.tree || context.text === undefined) return undefined;
  // Walk down as far as the path exists: a missing key is reported at its parent object.
  for (let n = at.length; n >= 0; n--) {
    const node = findNodeAtLocation(context.tree, at.slice(0, n) as Array<string | number>);
    // Point at the key of an object member ("hots": ...), at the element itself in an array.
    if (node) return lineColumn(context.text, node.parent?.type === 'property' ? node.parent.offset : node.offset);
  }
  return undefined;
}

function lineColumn(text: string, offset: number): string {
  let line = 1;
  let lastNewline = -1;
  for (let i = 0; i < offset && i < text.length; i++) {
    if (text.charCodeAt(i) === 10) {
      line++;
      lastNewline = i;
    }
  }
  return `line ${line}, column ${offset - lastNewline}`;
}

function findDuplicateKey(node: Node, at: Array<string | number> = []): { key: string; path: Array<string | number>; offset: number } | undefined {
  if (node.type === 'object') {
    const seen = new Set<string>();
    for (const property of node.children ?? []) {
      const keyNode = property.children?.[0];
      const valueNode = property.children?.[1];
      if (!keyNode) continue;
      const key = String(keyNode.value);
      if (seen.has(key)) return { key, path: at, offset: keyNode.offset };
      seen.add(key);
      if (valueNode) {
        const found = findDuplicateKey(valueNode, [...at, key]);
        if (found) return found;
      }
    }
  } else if (node.type === 'array') {
    for (const [i, child] of (node.children ?? []).entries()) {
      const found = findDuplicateKey(child, [...at, i]);
      if (found) return found;
    }
  }
  return undefined;
}

/** DNS-rebinding protection by default on loopback, as webpack-dev-server and Vite do. */
function resolveAllowedHosts(given: string[] | true | undefined, bind: string): string[] | true {
  if (given === true) return true;
  if (given !== undefined) return given.map((h) => h.toLowerCase().replace(/^\[(.*)\]$/, '$1'));
  const loopback = bind === 'localhost' || bind === '::1' || /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(bind);
  return loopback ? ['localhost', '127.0.0.1', '::1'] : true;
}
