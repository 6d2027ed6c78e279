import { existsSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { gunzipSync } from 'node:zlib';

/** ../shared/data/corpus/wordnet_glosses.jsonl.gz, beside the repository (see ../shared/data/README.md). */
export const WORDNET_FILE = fileURLToPath(new URL('../../../../../shared/data/corpus/wordnet_glosses.jsonl.gz', import.meta.url));

export interface WordnetSynset {
  id: string;
  /** The synset's lemmas, comma-separated. */
  title: string;
  /** The gloss. */
  text: string;
  lexname: string;
}

export function wordnetAvailable(): boolean {
  return existsSync(WORDNET_FILE);
}

/**
 * Synsets in WordNet's file order (nouns from `entity` on, then verbs, adjectives, adverbs): every
 * `stride`-th one, up to `limit`. A stride spreads a small sample over every lexname.
 */
export function loadWordnet(options: { limit?: number; stride?: number } = {}): WordnetSynset[] {
  const { limit = Infinity, stride = 1 } = options;
  const out: WordnetSynset[] = [];
  let n = 0;
  for (const line of gunzipSync(readFileSync(WORDNET_FILE)).toString('utf8').split('\n')) {
    if (line.trim() === '' || n++ % stride !== 0) continue;
    const row = JSON.parse(line) as WordnetSynset;
    out.push({ id: row.id, title: row.title, text: row.text, lexname: row.lexname });
    if (out.length >= limit) break;
  }
  return out;
}
