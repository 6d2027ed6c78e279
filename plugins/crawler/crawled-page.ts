import { createHash } from 'node:crypto';
import { mediaType } from 'tessera-runtime/plugin';
import type { ContentKind } from './crawl-config.js';

/** The document fields a crawl writes (`autoIndex`). */
export const crawledIndexShape = {
  dynamic: false,
  mappings: {
    url: { type: 'keyword' as const },
    title: { type: 'text' as const },
    description: { type: 'text' as const },
    content: { type: 'text' as const },
    headings: { type: 'text' as const },
    lang: { type: 'keyword' as const },
    crawledAt: { type: 'date' as const },
  },
};

/** The document id of a URL: stable across runs, so a re-crawl replaces the same document. */
export function documentId(url: string): string {
  return createHash('sha256').update(url).digest('hex').slice(0, 32);
}

const mediaKinds: Record<string, ContentKind> = {
  'text/html': 'html',
  'application/xhtml+xml': 'html',
  'text/plain': 'text',
  'application/json': 'json',
  'application/ld+json': 'json',
};

export function kindOf(contentType: string | null): ContentKind | undefined {
  if (contentType === null) return undefined;
  const type = mediaType(new Headers({ 'content-type': contentType }));
  if (type === undefined) return undefined;
  return mediaKinds[type] ?? (type.endsWith('+json') ? 'json' : undefined);
}

export function decode(bytes: Uint8Array, contentType: string | null): string {
  const charset = /charset\s*=\s*"?([^";\s]+)/i.exec(contentType ?? '')?.[1];
  try {
    return new TextDecoder(charset ?? 'utf-8').decode(bytes);
  } catch {
    return new TextDecoder('utf-8').decode(bytes);
  }
}
