import { existsSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

/** ../shared/data/cranfield, beside the repository (see ../shared/data/README.md). */
export const CRANFIELD_DIR = fileURLToPath(new URL('../../../../../shared/data/cranfield/', import.meta.url));

export interface CranfieldDoc {
  id: string;
  title: string;
  text: string;
}

export interface CranfieldQuery {
  id: string;
  text: string;
}

export interface Cranfield {
  docs: CranfieldDoc[];
  queries: CranfieldQuery[];
  /** query id -> doc id -> graded relevance (0-4). */
  qrels: Map<string, Map<string, number>>;
}

export function cranfieldAvailable(): boolean {
  return ['docs.jsonl', 'queries.jsonl', 'qrels.tsv'].every((f) => existsSync(CRANFIELD_DIR + f));
}

function jsonl<T>(file: string): T[] {
  return readFileSync(CRANFIELD_DIR + file, 'utf8')
    .split('\n')
    .filter((l) => l.trim() !== '')
    .map((l) => JSON.parse(l) as T);
}

export function loadCranfield(): Cranfield {
  const qrels = new Map<string, Map<string, number>>();
  const [header, ...rows] = readFileSync(CRANFIELD_DIR + 'qrels.tsv', 'utf8')
    .split('\n')
    .filter((l) => l.trim() !== '');
  if (header!.split('\t').join(' ') !== 'query-id corpus-id score') throw new Error(`unexpected qrels header: ${header}`);
  for (const row of rows) {
    const [query, doc, score] = row.split('\t');
    let judged = qrels.get(query!);
    if (!judged) qrels.set(query!, (judged = new Map()));
    judged.set(doc!, Number(score));
  }
  return { docs: jsonl<CranfieldDoc>('docs.jsonl'), queries: jsonl<CranfieldQuery>('queries.jsonl'), qrels };
}
