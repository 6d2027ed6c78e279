/**
 * `ctx.routes.static(prefix, dir)`: a plugin's browser assets (a web UI's build output) served by
 * h3's `serveStatic`, with the checks a file server needs: the resolved file, after symlinks, must
 * lie inside `dir`; conditional requests answer 304; hashed assets are cached for a year and
 * `index.html` is revalidated each time; a single-page app's client routes fall back to its
 * `index.html`.
 */
import { createReadStream, realpathSync, statSync } from 'node:fs';
import { realpath, stat } from 'node:fs/promises';
import path from 'node:path';
import { Readable } from 'node:stream';
import { serveStatic, withBase, type H3Event, type StaticAssetMeta } from 'h3';

export interface StaticOptions {
  /** Serve `index.html` for GETs of paths without a file extension that accept HTML (client-side routes). @default false */
  spaFallback?: boolean;
  /** `max-age` of files that are neither HTML nor content-hashed, in seconds. @default 0 (revalidate) */
  maxAgeSeconds?: number;
  /**
   * Files that never change (their names carry a content hash), cached for a year: a RegExp tested
   * on the path inside `dir` (`/assets/app-BmKqXQe.js`), e.g. `/^\/assets\//` for a Vite build; or
   * `false`. @default a name segment of 8+ letters and digits with at least one digit (`app.3f9a1c2b.js`)
   */
  immutable?: RegExp | false;
  /**
   * Headers set on every file served (a web UI's `Content-Security-Policy`, `Referrer-Policy`):
   * static files cannot carry them otherwise. Names are case-insensitive. @default {}
   */
  headers?: Record<string, string>;
}

export interface StaticMount {
  plugin: string;
  /** `/ui`, or `/` for the whole listener; never a trailing slash otherwise. */
  prefix: string;
  /** The directory, real path (symlinks resolved). */
  root: string;
  spaFallback: boolean;
  maxAgeSeconds: number;
  immutable: RegExp | false;
  headers: ReadonlyArray<[string, string]>;
}

export class StaticMountError extends Error {}

/** Validates what a plugin asked for; throws StaticMountError with a message that says what is wrong. */
export function staticMount(plugin: string, prefix: string, dir: string, options: StaticOptions = {}): StaticMount {
  if (!/^\/([A-Za-z0-9._~-]+(\/[A-Za-z0-9._~-]+)*)?$/.test(prefix) || prefix.split('/').some((s) => s === '.' || s === '..')) {
    throw new StaticMountError(`static prefix ${JSON.stringify(prefix)} must be "/" or a path such as "/ui" (no trailing slash, no dot segments)`);
  }
  if (!path.isAbsolute(dir)) throw new StaticMountError(`static directory ${JSON.stringify(dir)} must be an absolute path (resolve it from import.meta.url)`);
  let root: string;
  try {
    root = realpathSync(dir);
    if (!statSync(root).isDirectory()) throw new Error('not a directory');
  } catch (err) {
    throw new StaticMountError(`static directory ${JSON.stringify(dir)} cannot be served: ${(err as Error).message}`);
  }
  const maxAgeSeconds = options.maxAgeSeconds ?? 0;
  if (!Number.isInteger(maxAgeSeconds) || maxAgeSeconds < 0) throw new StaticMountError('static maxAgeSeconds must be a non-negative integer');
  const given = options.immutable ?? hashedName;
  if (given !== false && !(given instanceof RegExp)) throw new StaticMountError('static immutable must be a RegExp or false');
  // Without `g` or `y`: a stateful RegExp would answer differently for the same file on alternate requests.
  const immutable = given === false ? false : new RegExp(given.source, given.flags.replace(/[gy]/g, ''));
  const headers = Object.entries(options.headers ?? {});
  for (const [name, value] of headers) {
    if (!/^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/.test(name) || typeof value !== 'string' || /[\r\n\0]/.test(value))
      throw new StaticMountError(`static header ${JSON.stringify(name)} must be a header name with a single-line string value`);
  }
  return { plugin, prefix, root, spaFallback: options.spaFallback ?? false, maxAgeSeconds, immutable, headers };
}

/** Whether `pathname` (as sent) is under the mount. */
export function underMount(mount: StaticMount, pathname: string): boolean {
  return mount.prefix === '/' || pathname === mount.prefix || pathname.startsWith(`${mount.prefix}/`);
}

/**
 * `name.3f9a1c2b.js`, `chunk-BmK29xQe.css`: a content hash in the name, so the file never changes.
 * The digit keeps ordinary words out (`my-component.js`, `jquery-migrate.js`): a hashed name taken
 * for a plain one is only revalidated, a plain name taken for a hashed one would be stale for a year.
 */
const hashedName = /[.-](?=[A-Za-z0-9_]*\d)[A-Za-z0-9_]{8,}\.[A-Za-z0-9]+$/;

function cacheControl(mount: StaticMount, file: string): string {
  if (file.endsWith('.html')) return 'no-cache';
  const inside = file.startsWith(mount.root + path.sep) ? file.slice(mount.root.length).split(path.sep).join('/') : `/${path.basename(file)}`;
  if (mount.immutable !== false && mount.immutable.test(inside)) return 'public, max-age=31536000, immutable';
  return mount.maxAgeSeconds > 0 ? `public, max-age=${mount.maxAgeSeconds}` : 'no-cache';
}

/** The file `id` names inside the mount, or undefined: outside it (also through a symlink), not a file, or unreadable. */
async function resolveFile(mount: StaticMount, id: string): Promise<{ file: string; size: number; mtime: Date } | undefined> {
  // The id keeps encoded separators encoded (h3): used as an opaque name it cannot climb out.
  if (id.includes('\0') || id.includes('\\')) return undefined;
  const joined = path.join(mount.root, id);
  if (joined !== mount.root && !joined.startsWith(mount.root + path.sep)) return undefined;
  try {
    const real = await realpath(joined);
    if (real !== mount.root && !real.startsWith(mount.root + path.sep)) return undefined;
    const info = await stat(real);
    return info.isFile() ? { file: real, size: info.size, mtime: info.mtime } : undefined;
  } catch {
    return undefined;
  }
}

function serveFrom(mount: StaticMount, pick: (id: string) => string) {
  const found = new Map<string, { file: string; size: number; mtime: Date }>();
  let last: string | undefined;
  return {
    fallthrough: true,
    async getMeta(id: string): Promise<StaticAssetMeta | undefined> {
      const hit = await resolveFile(mount, pick(id));
      if (!hit) return undefined;
      found.set(id, hit);
      last = hit.file;
      const meta: StaticAssetMeta = { size: hit.size, mtime: hit.mtime, etag: `W/"${hit.size.toString(16)}-${hit.mtime.getTime().toString(16)}"` };
      // The SPA fallback answers a path without an extension, from which no type can be guessed.
      if (hit.file.endsWith('.html')) meta.type = 'text/html; charset=utf-8';
      return meta;
    },
    getContents(id: string): ReadableStream {
      return Readable.toWeb(createReadStream(found.get(id)!.file)) as ReadableStream;
    },
    /** The file the last successful lookup found. */
    served: () => last,
  };
}

/**
 * Serves the request from the mount, or returns undefined (nothing there: the caller answers 404).
 * Only GET and HEAD reach it.
 */
export async function serveFromMount(event: H3Event, mount: StaticMount): Promise<unknown> {
  const direct = serveFrom(mount, (id) => id);
  let served = await withBase(mount.prefix, (e) => serveStatic(e, direct))(event);
  let file = served === undefined ? undefined : direct.served();
  if (served === undefined && mount.spaFallback && event.req.method === 'GET' && acceptsHtml(event) && !path.extname(lastSegment(event.url.pathname))) {
    const index = serveFrom(mount, () => '/index.html');
    served = await withBase(mount.prefix, (e) => serveStatic(e, index))(event);
    file = served === undefined ? undefined : index.served();
  }
  if (served === undefined) return undefined;
  event.res.headers.set('cache-control', cacheControl(mount, file ?? event.url.pathname));
  event.res.headers.set('x-content-type-options', 'nosniff');
  for (const [name, value] of mount.headers) event.res.headers.set(name, value);
  return served;
}

function acceptsHtml(event: H3Event): boolean {
  return (event.req.headers.get('accept') ?? '').includes('text/html');
}

function lastSegment(pathname: string): string {
  return pathname.slice(pathname.lastIndexOf('/') + 1);
}
