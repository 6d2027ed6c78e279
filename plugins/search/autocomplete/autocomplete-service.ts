/**
 * Autocomplete over every source of an index: the search plugin's own (past queries, phrases,
 * categories, titles) and those other plugins register (graph entities, image tags). Document
 * sources are built from the stored documents on first use (a `ctx.jobs` job) and then kept up
 * to date from `documents.written`; a changed index rebuilds them and a dropped one forgets them.
 */
import { setImmediate as yieldToLoop } from 'node:timers/promises';
import type { JobsService, Logger, StoreNamespace } from 'tessera-runtime/plugin';
import { has } from '../index/bitset.js';
import type { SearchEngine, SearchIndex } from '../index/search-engine.js';
import { autocompleteFields, DocumentSuggestions } from './document-suggestions.js';
import { parsePrefixQuery } from './normalize.js';
import { QueryLog } from './query-log.js';
import { rankSuggestions, type AutocompleteSuggestion, type RankedSource } from './rank.js';
import type { SuggestionDictionary } from './suggestion-dictionary.js';
import { defaultFlags, type IncludeFlag, type IndexScope, type SuggestionSource } from './suggestion-source.js';

export type { AutocompleteSuggestion };

export interface AutocompleteRequest {
  q: string;
  size: number;
  includeCategories?: boolean;
  includeDocuments?: boolean;
  includeVisualTags?: boolean;
  includeGraphEntities?: boolean;
}

/** What other plugins use (`AUTOCOMPLETE_SERVICE`): register a source; ask for suggestions. */
export interface AutocompleteService {
  /** Adds a source for every index; the returned function removes it. */
  register(source: SuggestionSource): () => void;
  suggest(tenant: string, index: string, request: AutocompleteRequest): Promise<{ query: string; suggestions: AutocompleteSuggestion[] }>;
}

export const AUTOCOMPLETE_BUILD_JOB = 'autocomplete-build';

interface IndexState {
  uuid: string;
  suggestions: DocumentSuggestions;
  ready: Promise<void>;
}

const keyOf = (tenant: string, index: string): string => `${tenant}\u0000${index}`;

export class Autocomplete implements AutocompleteService {
  private readonly states = new Map<string, IndexState>();
  private readonly sources = new Set<SuggestionSource>();
  private readonly builds = new Map<string, () => Promise<void>>();
  private readonly queries: QueryLog;
  private readonly engine: () => SearchEngine;
  private readonly jobs: JobsService | undefined;
  private readonly log: Logger;
  private tokens = 0;

  constructor(deps: { engine: () => SearchEngine; store: StoreNamespace; jobs?: JobsService; log: Logger; maxQueries: number }) {
    this.engine = deps.engine;
    this.jobs = deps.jobs;
    this.log = deps.log;
    this.queries = new QueryLog(deps.store, { maxQueries: deps.maxQueries });
    deps.jobs?.define<{ tenant: string; index: string; token: string }, { built: boolean }>(
      AUTOCOMPLETE_BUILD_JOB,
      async (job) => {
        const work = this.builds.get(job.input.token);
        // Queued by a process that has since stopped: the next first use builds anew.
        if (!work) return { built: false };
        this.builds.delete(job.input.token);
        await work();
        return { built: true };
      },
      { concurrency: 1, onInterrupt: 'fail' },
    );
    const own = (type: 'document' | 'category' | 'phrase', pick: (s: DocumentSuggestions) => SuggestionDictionary): SuggestionSource => ({
      type,
      ...(defaultFlags[type] ? { flag: defaultFlags[type] } : {}),
      dictionary: async (scope) => pick(await this.documentSuggestions(scope)),
    });
    this.sources.add({ type: 'query', dictionary: (scope) => this.queries.dictionary(scope.uuid) });
    this.sources.add(own('phrase', (s) => s.phrases));
    this.sources.add(own('category', (s) => s.categories));
    this.sources.add(own('document', (s) => s.documents));
  }

  /** Subscribes to the engine's events: call once the engine exists. */
  attach(engine: SearchEngine): void {
    engine.on('documents.written', ({ tenant, index, upserted, deleted }) => {
      const state = this.states.get(keyOf(tenant, index));
      if (!state || !engine.has(tenant, index)) return;
      const live = engine.get(tenant, index);
      for (const id of deleted) state.suggestions.remove(id);
      for (const id of upserted) {
        const source = live.getDocument(id);
        if (source) state.suggestions.put(id, source);
        else state.suggestions.remove(id);
      }
    });
    engine.on('index.changed', ({ tenant, index }) => this.states.delete(keyOf(tenant, index)));
    engine.on('index.dropped', ({ tenant, index }) => {
      const state = this.states.get(keyOf(tenant, index));
      this.states.delete(keyOf(tenant, index));
      const live = new Set(engine.all().map((i) => i.record.uuid));
      void this.queries.dropExcept(live, state?.uuid).catch((err: unknown) => this.log.warn({ err, index }, 'autocomplete query log not cleared'));
    });
  }

  register(source: SuggestionSource): () => void {
    this.sources.add(source);
    return () => this.sources.delete(source);
  }

  /** Counts a search that found something towards the index's `query` suggestions. */
  async searched(tenant: string, index: string, q: unknown, total: number): Promise<void> {
    if (typeof q !== 'string' || total <= 0) return;
    const engine = this.engine();
    if (!engine.has(tenant, index)) return;
    await this.queries.record(engine.get(tenant, index).record.uuid, q);
  }

  async suggest(tenant: string, index: string, request: AutocompleteRequest): Promise<{ query: string; suggestions: AutocompleteSuggestion[] }> {
    const live = this.engine().get(tenant, index);
    const query = parsePrefixQuery(request.q);
    if (!query) return { query: request.q, suggestions: [] };
    const scope: IndexScope = { tenant, index, uuid: live.record.uuid };
    const dictionaries: Array<{ type: SuggestionSource['type']; dictionary: SuggestionDictionary }> = [];
    for (const source of this.sources) {
      if (source.flag && request[source.flag as IncludeFlag] === false) continue;
      const dictionary = await source.dictionary(scope);
      if (dictionary && dictionary.size > 0) dictionaries.push({ type: source.type, dictionary });
    }
    // Typo'd matches rank below every exact one: look for them only when exact ones do not fill the answer.
    const exact = { ...query, maxEdits: 0 };
    const ranked: RankedSource[] = dictionaries.map(({ type, dictionary }) => ({ type, matches: dictionary.match(exact) }));
    let suggestions = rankSuggestions(ranked, request.size);
    if (suggestions.length < request.size && query.maxEdits > 0) {
      suggestions = rankSuggestions(
        dictionaries.map(({ type, dictionary }) => ({ type, matches: dictionary.match(query) })),
        request.size,
      );
    }
    return { query: request.q, suggestions };
  }

  /** The index's document sources, built from its stored documents the first time. */
  private async documentSuggestions(scope: IndexScope): Promise<DocumentSuggestions> {
    const key = keyOf(scope.tenant, scope.index);
    let state = this.states.get(key);
    if (!state || state.uuid !== scope.uuid) {
      const index = this.engine().get(scope.tenant, scope.index);
      const suggestions = new DocumentSuggestions(autocompleteFields(index.record));
      const created: IndexState = { uuid: scope.uuid, suggestions, ready: Promise.resolve() };
      created.ready = this.runBuild(scope, () => fill(index, suggestions, () => this.states.get(key) !== created));
      this.states.set(key, (state = created));
      created.ready.catch(() => {
        if (this.states.get(key) === created) this.states.delete(key);
      });
    }
    await state.ready;
    return state.suggestions;
  }

  private async runBuild(scope: IndexScope, work: () => Promise<void>): Promise<void> {
    if (!this.jobs) return work();
    const token = `${process.pid}.${++this.tokens}`;
    let ran = false;
    this.builds.set(token, async () => {
      ran = true;
      await work();
    });
    try {
      const job = await this.jobs.enqueue(AUTOCOMPLETE_BUILD_JOB, { tenant: scope.tenant, index: scope.index, token }, { tenant: scope.tenant });
      const done = await this.jobs.wait(job.id);
      if (done.state !== 'completed') throw new Error(`autocomplete build of "${scope.index}" ended ${done.state}: ${done.error?.message ?? ''}`);
    } finally {
      this.builds.delete(token);
      // Refused (shutting down): build here so the request still gets its answer.
      if (!ran) await work();
    }
  }
}

/** Reads every live document of `index` into `suggestions`, yielding to the event loop as it goes. */
async function fill(index: SearchIndex, suggestions: DocumentSuggestions, abandoned: () => boolean): Promise<void> {
  let n = 0;
  for (const segment of index.segments) {
    const ids = segment.data.ids;
    for (let ord = 0; ord < ids.length; ord++) {
      if (has(segment.deleted, ord)) continue;
      const source = index.getDocument(ids[ord]!);
      if (source) suggestions.put(ids[ord]!, source);
      if (++n % 2000 === 0) {
        await yieldToLoop();
        if (abandoned()) return;
      }
    }
  }
}
