/**
 * The code knowledge graph of a tenant's repository, kept in Tessera's own stores
 * (docs/agent-api.md, "Code knowledge graph"): the declarations are documents of a search index
 * with vectors (`autoEmbed`), the containment, call and import relations are triples of the graph
 * plugin's graph of the same index. The agent keeps only a ledger per file (its git blob id and its
 * parse) so that an update parses only the files whose content hash changed.
 */
import { createHash } from 'node:crypto';
import type { StoreNamespace } from 'tessera-runtime/plugin';
import type { GraphService, GraphTriple } from '../../graph/index.js';
import type { SearchService } from '../../search/index.js';
import type { CodeLookup } from '../jobs/grounding.js';
import { listFiles, readBlobs } from '../repos/files.js';
import type { Checkout } from '../repos/repositories.js';
import { declarationDocument, declarationOf, indexSpec, snippetOf } from './documents.js';
import { extractSymbols, type Declaration, type FileSymbols } from './extract.js';
import { graphLanguages, languageOf } from './languages.js';
import { link, type CodeStats, type GraphEdge } from './link.js';
import { keywordsOf as wordsOf } from './words.js';

interface LedgerEntry {
  blob: string;
  symbols: FileSymbols;
}

interface Head {
  commit: string;
  index: string;
  stats: CodeStats;
  at: string;
}

/** A relation of the stored graph: one triple, its weight the number of call sites for `calls`. */
export interface StoredEdge {
  from: string;
  to: string;
  kind: GraphEdge['kind'];
  weight: number;
}

export interface CodeUpdate {
  commit: string;
  /** The search index and graph holding the repository's code. */
  index: string;
  stats: CodeStats;
}

/** Triple weights (docs/agent-api.md): calls count their call sites, containment is a weak link. */
export const edgeWeights = { contains: 0.5, imports: 1 } as const;
/** The cosine similarity a declaration found by the vector side alone needs to ground a prompt. */
export const minSimilarity = 0.2;
/** Declarations per search write: one write for a whole build, so the embedder trains once after it rather than between batches. */
const writeBatch = 10_000;

/**
 * The search index (and graph) name of a repository: `code--<owner>--<repo>` lower-cased, other
 * characters than [a-z0-9_-] as `-`; a name changed by that, or longer than 64, ends in `-` and 8 hex
 * of the SHA-256 of `owner/repo` so that two repositories never share one.
 */
export function codeIndexName(repo: string): string {
  const [owner = '', name = ''] = repo.split('/');
  const plain = `${codeIndexPrefix}${owner}--${name}`;
  const clean = plain.toLowerCase().replace(/[^a-z0-9_-]/g, '-');
  if (clean === plain && clean.length <= 64) return clean;
  const hash = createHash('sha256').update(repo).digest('hex').slice(0, 8);
  return `${clean.slice(0, 55)}-${hash}`;
}

/** Every code index's name starts so. */
export const codeIndexPrefix = 'code--';

const tripleKey = (t: Pick<GraphTriple, 'subject' | 'predicate' | 'object'>): string => `${t.subject}\u0000${t.predicate}\u0000${t.object}`;

/** The triples of the edges of `link()`: one per (from, kind, to), a call's weight its number of call sites. */
export function triplesOf(edges: readonly GraphEdge[]): GraphTriple[] {
  const byKey = new Map<string, GraphTriple>();
  for (const e of edges) {
    const t = { subject: e.from, predicate: e.kind, object: e.to, weight: e.kind === 'calls' ? 1 : edgeWeights[e.kind] };
    const key = tripleKey(t);
    const seen = byKey.get(key);
    if (seen && e.kind === 'calls') seen.weight++;
    else if (!seen) byKey.set(key, t);
  }
  return [...byKey.values()];
}

export class CodeIndex {
  private readonly ledger;
  private readonly heads;
  private readonly queues = new Map<string, Promise<unknown>>();

  constructor(
    private readonly store: StoreNamespace,
    private readonly search: SearchService,
    private readonly graph: GraphService,
  ) {
    this.ledger = store.db<LedgerEntry, string[]>('code-ledger');
    this.heads = store.db<Head, string[]>('code-index-heads');
  }

  /** Brings `tenant`'s index of `c`'s repository to `commit`: only files whose blob id changed are parsed. */
  update(tenant: string, c: Checkout, commit: string): Promise<CodeUpdate> {
    const key = `${tenant}\u0000${c.ref.full}`;
    const run = (this.queues.get(key) ?? Promise.resolve()).then(
      () => this.apply(tenant, c, commit),
      () => this.apply(tenant, c, commit),
    );
    this.queues.set(
      key,
      run.catch(() => undefined),
    );
    return run;
  }

  private async apply(tenant: string, c: Checkout, commit: string): Promise<CodeUpdate> {
    const repo = c.ref.full;
    const index = codeIndexName(repo);
    let head = this.heads.get([tenant, repo]);
    if (!this.search.get(tenant, index) || head?.index !== index) {
      // The index was dropped (or never made): the ledger describes nothing that exists, start again.
      await this.forget(tenant, repo);
      head = undefined;
      await this.search.ensure(tenant, indexSpec(index));
    }
    if (head && head.commit === commit) return { commit, index, stats: { ...head.stats, parsedFiles: 0, reusedFiles: head.stats.files, removedFiles: 0 } };

    const tree = (await listFiles(c, commit)).filter((f) => graphLanguages.includes(languageOf(f.path)?.name ?? ''));
    const stored = new Map<string, LedgerEntry>();
    for (const { key, value } of this.ledger.getRange({ start: [tenant, repo], end: [tenant, repo, '\uffff'] })) stored.set(key[2]!, value);
    const changed = tree.filter((f) => stored.get(f.path)?.blob !== f.blob);
    const texts = await readBlobs(c, [...new Set(changed.map((f) => f.blob))]);
    const parsed = new Map<string, LedgerEntry>();
    const snippets = new Map<string, string>();
    for (const f of changed) {
      const text = texts.get(f.blob) ?? '';
      const symbols = await extractSymbols(f.path, text);
      if (!symbols) continue;
      parsed.set(f.path, { blob: f.blob, symbols });
      const lines = text.split('\n');
      for (const d of symbols.declarations) snippets.set(d.id, snippetOf(d, lines));
    }
    const present = new Set(tree.map((f) => f.path));
    const changedPaths = new Set(changed.map((f) => f.path));
    // Gone: deleted from the tree, or changed into something no grammar extracts from.
    const gone = [...stored.keys()].filter((p) => !present.has(p) || (changedPaths.has(p) && !parsed.has(p)));
    const all = new Map(stored);
    for (const p of gone) all.delete(p);
    for (const [p, e] of parsed) all.set(p, e);
    const linked = link([...all.values()].map((e) => e.symbols));

    // Declarations of the files parsed again are written; every document and entity that no file's
    // parse makes any more is deleted. Read from the index and the graph rather than from the ledger,
    // so that what an update cut short by a crash wrote before its ledger commit is removed too.
    const fresh = [...parsed.values()].flatMap((e) => e.symbols.declarations);
    const keep = new Set([...all.values()].flatMap((e) => e.symbols.declarations.map((d) => d.id)));
    const stale = this.search.documentIds(tenant, index).filter((id) => !keep.has(id));
    const staleEntities = this.graph
      .entities(tenant, index)
      .map((e) => e.id)
      .filter((id) => !keep.has(id));
    for (let i = 0; i < fresh.length; i += writeBatch) {
      const written = await this.search.upsert(
        tenant,
        index,
        fresh.slice(i, i + writeBatch).map((d) => declarationDocument(d, all.get(d.file)!.symbols.language, snippets.get(d.id) ?? '')),
      );
      if (written.errors.length) throw new Error(`declarations not indexed in ${index}: ${written.errors[0]!.code} ${written.errors[0]!.message}`);
    }
    for (let i = 0; i < stale.length; i += writeBatch) await this.search.delete(tenant, index, stale.slice(i, i + writeBatch));

    // Relations: every triple is recomputed from every file's parse (a changed callee's file changes
    // how other files' calls resolve), and only the difference is written.
    const wanted = new Map(triplesOf(linked.edges).map((t) => [tripleKey(t), t]));
    const current = new Map(this.graph.triples(tenant, index).map((t) => [tripleKey(t), t]));
    const removeTriples = [...current].filter(([k]) => !wanted.has(k)).map(([, t]) => t);
    const triples = [...wanted].filter(([k, t]) => current.get(k)?.weight !== t.weight).map(([, t]) => t);
    await this.graph.write(tenant, index, {
      removeEntities: staleEntities,
      removeTriples,
      entities: fresh.map((d) => ({
        id: d.id,
        name: d.name,
        type: d.kind,
        ...(d.qualifiedName !== d.name ? { aliases: [d.qualifiedName] } : {}),
        properties: { file: d.file, startLine: d.startLine, endLine: d.endLine },
        docIds: [d.id],
      })),
      triples,
    });

    const stats: CodeStats = { ...linked.stats, files: all.size, parsedFiles: parsed.size, reusedFiles: all.size - parsed.size, removedFiles: gone.length };
    await this.store.transaction(() => {
      for (const [file, entry] of parsed) void this.ledger.put([tenant, repo, file], entry);
      for (const file of gone) void this.ledger.remove([tenant, repo, file]);
      void this.heads.put([tenant, repo], { commit, index, stats, at: new Date().toISOString() });
    });
    return { commit, index, stats };
  }

  /** Every declaration (by id) and relation (by from, kind, to) of the repository's index. */
  read(tenant: string, repo: string): { declarations: Declaration[]; edges: StoredEdge[] } {
    const index = codeIndexName(repo);
    const declarations = this.search
      .documentIds(tenant, index)
      .map((id) => this.search.getDocument(tenant, index, id))
      .filter((d): d is Record<string, unknown> => d !== undefined)
      .map(declarationOf)
      .sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
    const order = { contains: 0, calls: 1, imports: 2 } as const;
    const edges = this.graph
      .triples(tenant, index)
      .map((t) => ({ from: t.subject, to: t.object, kind: t.predicate as GraphEdge['kind'], weight: t.weight }))
      .sort((a, b) => (a.from < b.from ? -1 : a.from > b.from ? 1 : order[a.kind] - order[b.kind] || (a.to < b.to ? -1 : a.to > b.to ? 1 : 0)));
    return { declarations, edges };
  }

  /**
   * Declarations relevant to `text`: a hybrid (keyword + vector) search of the index with the
   * text's words (identifiers split), best first.
   */
  async relevant(tenant: string, repo: string, text: string, size: number): Promise<Declaration[]> {
    const words = [...wordsOf(text)].slice(0, 64);
    if (!words.length) return [];
    const found = await this.search.search(tenant, codeIndexName(repo), {
      q: words.join(' '),
      mode: 'hybrid',
      size,
      highlight: false,
      explain: true,
      filter: { not: { eq: { kind: 'module' } } },
    });
    // A hit the keyword side matched, or one the vector side brought while it has a weight (not
    // before the embedder's first training, when the vector side is lexical and weighs 0) and
    // found similar enough: the vector side ranks every declaration, most of them near 0.
    return found.hits
      .filter((h) => {
        const e = h['explain'] as { keyword: unknown; semantic: { weight: number; score: number } | null } | undefined;
        return e?.keyword != null || ((e?.semantic?.weight ?? 0) > 0 && (e?.semantic?.score ?? 0) >= minSimilarity);
      })
      .map((h) => declarationOf(h.source));
  }

  /** Callers (`in`) or callees (`out`) of a declaration, from the graph, most call sites first. */
  calls(tenant: string, repo: string, id: string, direction: 'in' | 'out'): string[] {
    return this.graph.neighbours(tenant, codeIndexName(repo), id, { predicate: 'calls', direction }).map((n) => n.entity.id);
  }

  /** What grounding reads (jobs/grounding.ts), for one tenant's repository. */
  lookup(tenant: string, repo: string): CodeLookup {
    return {
      relevant: (text, size) => this.relevant(tenant, repo, text, size),
      calls: (id, direction) => this.calls(tenant, repo, id, direction),
      declaration: (id) => this.declaration(tenant, repo, id),
    };
  }

  declaration(tenant: string, repo: string, id: string): Declaration | undefined {
    const doc = this.search.getDocument(tenant, codeIndexName(repo), id);
    return doc ? declarationOf(doc) : undefined;
  }

  /** Forgets the ledger of a tenant's repository and drops its index and graph. */
  async forget(tenant: string, repo: string): Promise<void> {
    const index = codeIndexName(repo);
    await this.search.drop(tenant, index);
    await this.graph.drop(tenant, index);
    await this.store.transaction(() => {
      for (const key of this.ledger.getKeys({ start: [tenant, repo], end: [tenant, repo, '\uffff'] })) void this.ledger.remove(key);
      void this.heads.remove([tenant, repo]);
    });
  }
}
