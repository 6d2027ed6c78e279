/** How a trailing slash on a path is treated when URLs are compared. */
export type TrailingSlashPolicy = 'keep' | 'strip' | 'add';

/**
 * The longest URL a crawl follows, in characters (an href is ASCII). URLs are LMDB keys of page
 * states and checkpoints, whose keys are bounded (1978 bytes); longer ones are passed over.
 */
export const MAX_URL_LENGTH = 1500;

/**
 * The one form a URL is stored, compared and deduplicated in: scheme and host lower-cased, default
 * port dropped (WHATWG URL does both), fragment removed, query parameters sorted (stable, so
 * repeated keys keep their order), an empty `?` dropped, and the trailing-slash policy applied.
 * Returns undefined for anything that is not an absolute http(s) URL, or is longer than MAX_URL_LENGTH.
 */
export function normalizeUrl(input: string, base?: string | URL, trailingSlash: TrailingSlashPolicy = 'keep'): string | undefined {
  let url: URL;
  try {
    url = base === undefined ? new URL(input) : new URL(input, base);
  } catch {
    return undefined;
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return undefined;
  url.hash = '';
  url.username = '';
  url.password = '';
  const params = [...url.searchParams.entries()];
  params.sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0));
  // Assigning '' also drops a bare `?`, which `search` reports as empty but `href` keeps.
  url.search = params.length === 0 ? '' : new URLSearchParams(params).toString();
  const path = url.pathname;
  if (path !== '/') {
    if (trailingSlash === 'strip' && path.endsWith('/')) url.pathname = path.replace(/\/+$/, '') || '/';
    else if (trailingSlash === 'add' && !path.endsWith('/') && !lastSegment(path).includes('.')) url.pathname = `${path}/`;
  }
  return url.href.length > MAX_URL_LENGTH ? undefined : url.href;
}

function lastSegment(path: string): string {
  return path.slice(path.lastIndexOf('/') + 1);
}

/** `scheme://host[:port]` of a URL. */
export function originOf(url: string): string {
  return new URL(url).origin;
}
