import type { AdapterFactory } from './adapter.js';

/**
 * Every engine the search bench runs, in table order. Each factory imports its module lazily, so a
 * peer whose native build failed (better-sqlite3) only takes its own rows down.
 * `run.ts` reads the targets in the summary for the adapter named `tessera`.
 */
export const adapters: Record<string, AdapterFactory> = {
  minisearch: async () => new (await import('./minisearch.js')).MiniSearchAdapter(),
  orama: async () => new (await import('./orama.js')).OramaAdapter(),
  flexsearch: async () => new (await import('./flexsearch.js')).FlexSearchAdapter(),
  'wink-bm25': async () => new (await import('./wink-bm25.js')).WinkBm25Adapter(),
  'sqlite-fts5': async () => new (await import('./sqlite-fts5.js')).SqliteFts5Adapter('unicode61'),
  'sqlite-fts5-porter': async () => new (await import('./sqlite-fts5.js')).SqliteFts5Adapter('porter unicode61'),
  tessera: async () => new (await import('./tessera.js')).TesseraAdapter(),
};

/** The adapter whose figures the targets are about. */
export const OURS = 'tessera';

export function adapterNames(): string[] {
  return Object.keys(adapters);
}

export async function createAdapter(name: string): Promise<import('./adapter.js').SearchAdapter> {
  const factory = adapters[name];
  if (!factory) throw new Error(`unknown search adapter "${name}"; known: ${adapterNames().join(', ')}`);
  return factory();
}
