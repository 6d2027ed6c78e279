/**
 * Entity extraction from documents, by dictionary (gazetteer) linking: a document mentions an
 * entity when a run of its words equals one of the entity's names or aliases, after case and
 * diacritic folding, as entity resolution compares them. Runs are matched longest first and each
 * word serves one run, so "New York City" links the city, not also "York". A one-word name counts
 * from three characters and not when it is a number. It is deterministic and needs no model: it
 * finds the entities the graph knows and nothing else (no named-entity recognition of new names,
 * no disambiguation: a name shared by two entities links both).
 *
 * Mentions are stored per document ([tenant, index, docId] -> entity ids) and kept current on every
 * write and delete of the index; a write of entities re-reads every document of the index (a
 * `link-mentions` job, coalesced while one runs). `relatedDocIds` answers an entity's mentions
 * with its own `docIds`.
 */
import type { Database } from 'lmdb';
import type { StoreNamespace } from 'tessera-runtime/plugin';
import { suggestionWords } from '../search/index.js';
import type { IndexGraph } from './index-graph.js';

/** Characters of a document's strings read for mentions. */
const maxTextChars = 200_000;

type MentionKey = [string, string, string];

interface IndexMentions {
  byDoc: Map<string, string[]>;
  byEntity: Map<string, Set<string>>;
}

/** The entity ids whose names appear in `text`. */
export function findMentions(graph: IndexGraph, text: string): Set<string> {
  const words = suggestionWords(text);
  const found = new Set<string>();
  const used = new Uint8Array(words.length);
  for (let length = Math.min(graph.longestName, words.length); length >= 1; length--) {
    for (let start = 0; start + length <= words.length; start++) {
      let free = true;
      for (let i = start; i < start + length && free; i++) if (used[i]) free = false;
      if (!free) continue;
      if (length === 1 && (words[start]!.length < 3 || /^\p{N}+$/u.test(words[start]!))) continue;
      const ids = graph.exact.get(length === 1 ? words[start]! : words.slice(start, start + length).join(' '));
      if (!ids) continue;
      used.fill(1, start, start + length);
      for (const id of ids) found.add(id);
    }
  }
  return found;
}

/** Every string of a document but its id, each its own text (a run of words does not cross values), up to `maxTextChars` in all. */
export function documentTexts(source: Record<string, unknown>): string[] {
  const parts: string[] = [];
  let size = 0;
  const walk = (value: unknown, key?: string): void => {
    if (size >= maxTextChars || key === 'id' || key === '_vector') return;
    if (typeof value === 'string') {
      parts.push(value);
      size += value.length + 1;
    } else if (Array.isArray(value)) value.forEach((v) => walk(v));
    else if (value !== null && typeof value === 'object') for (const [k, v] of Object.entries(value)) walk(v, k);
  };
  walk(source);
  return parts;
}

export class Mentions {
  private readonly db: Database<string[], MentionKey>;
  private readonly store: StoreNamespace;
  private readonly loaded = new Map<string, IndexMentions>();

  constructor(store: StoreNamespace) {
    this.store = store;
    this.db = store.db<string[], MentionKey>('mentions');
  }

  private of(tenant: string, index: string): IndexMentions {
    const key = `${tenant}\u0000${index}`;
    let m = this.loaded.get(key);
    if (m) return m;
    m = { byDoc: new Map(), byEntity: new Map() };
    for (const { key: k, value } of this.db.getRange({ start: [tenant, index] })) {
      if (k[0] !== tenant || k[1] !== index) break;
      this.apply(m, k[2], value);
    }
    this.loaded.set(key, m);
    return m;
  }

  private apply(m: IndexMentions, docId: string, entities: readonly string[]): void {
    for (const id of m.byDoc.get(docId) ?? []) {
      const docs = m.byEntity.get(id);
      docs?.delete(docId);
      if (docs?.size === 0) m.byEntity.delete(id);
    }
    if (entities.length === 0) {
      m.byDoc.delete(docId);
      return;
    }
    m.byDoc.set(docId, [...entities]);
    for (const id of entities) {
      let docs = m.byEntity.get(id);
      if (!docs) m.byEntity.set(id, (docs = new Set()));
      docs.add(docId);
    }
  }

  /** The documents that mention entity `id`. */
  documentsOf(tenant: string, index: string, id: string): ReadonlySet<string> {
    return this.of(tenant, index).byEntity.get(id) ?? new Set();
  }

  /** The entities document `docId` mentions. */
  entitiesOf(tenant: string, index: string, docId: string): readonly string[] {
    return this.of(tenant, index).byDoc.get(docId) ?? [];
  }

  /** Records what each document mentions now (`undefined` source: the document is gone). */
  async update(
    tenant: string,
    index: string,
    graph: IndexGraph,
    documents: ReadonlyArray<{ id: string; source: Record<string, unknown> | undefined }>,
  ): Promise<void> {
    const m = this.of(tenant, index);
    const changes: Array<[string, string[]]> = [];
    for (const { id, source } of documents) {
      const found = new Set<string>();
      if (source && graph.entities.size > 0) for (const text of documentTexts(source)) for (const e of findMentions(graph, text)) found.add(e);
      const entities = [...found].sort();
      const before = m.byDoc.get(id) ?? [];
      if (before.length === entities.length && before.every((e, i) => e === entities[i])) continue;
      changes.push([id, entities]);
    }
    if (changes.length === 0) return;
    await this.store.transaction(() => {
      for (const [id, entities] of changes) {
        if (entities.length === 0) void this.db.remove([tenant, index, id]);
        else void this.db.put([tenant, index, id], entities);
      }
    });
    for (const [id, entities] of changes) this.apply(m, id, entities);
  }

  /** Forgets a dropped index's mentions. */
  async drop(tenant: string, index: string): Promise<void> {
    this.loaded.delete(`${tenant}\u0000${index}`);
    const keys: MentionKey[] = [];
    for (const k of this.db.getKeys({ start: [tenant, index] })) {
      if (k[0] !== tenant || k[1] !== index) break;
      keys.push(k);
    }
    if (keys.length > 0) await this.store.transaction(() => keys.forEach((k) => void this.db.remove(k)));
  }
}
