import type { Logger } from 'pino';
import type { Analyzer } from '../analysis/analyzer.js';
import { CORPUS_LSA_V1, trainCorpusLsa, type CorpusLsaModel } from '../embedders/corpus-lsa.js';
import type { Embedder } from '../embedders/embedder.js';
import type { IndexRecord } from './index-record.js';
import type { IndexableDocument } from './segment.js';

/**
 * autoEmbed on the write path: which documents get an embedding and from what text, and the
 * training of a corpus-lsa-v1 index's term model from its documents (at a re-index or retrain).
 */

/** Whether the index embeds with a model trained from its documents (corpus-lsa-v1). */
export function trainsEmbedder(record: IndexRecord): boolean {
  const e = record.settings.embedder;
  return record.settings.autoEmbed && typeof e === 'object' && e.type === 'builtin' && e.model === CORPUS_LSA_V1;
}

/** The text autoEmbed embeds: the document's mapped text fields, in mapping order. */
export function embeddableText(fields: Record<string, { type: string; values: unknown[] }>, textFields: readonly string[]): string {
  return textFields.flatMap((f) => (fields[f]?.values ?? []).map(String)).join('\n');
}

/**
 * Give documents without their own `_vector` an embedding (autoEmbed). Returns the documents
 * whose embedding failed, with the reason; the others have `vector` set.
 */
export async function embedMissing(
  docs: IndexableDocument[],
  embedder: Embedder | undefined,
  textFields: readonly string[],
): Promise<Map<IndexableDocument, string>> {
  const failed = new Map<IndexableDocument, string>();
  if (!embedder) return failed;
  const todo = docs.map((doc) => ({ doc, text: doc.vector ? '' : embeddableText(doc.fields, textFields) })).filter((t) => t.text.trim() !== '');
  if (todo.length === 0) return failed;
  try {
    const vectors = await embedder.embed(todo.map((t) => t.text));
    todo.forEach((t, i) => (t.doc.vector = vectors[i]!));
  } catch (err) {
    for (const t of todo) failed.set(t.doc, (err as Error).message);
  }
  return failed;
}

/** Trains the corpus-lsa-v1 term model from the documents' embeddable text. */
export async function trainTermModel(
  docs: readonly IndexableDocument[],
  record: IndexRecord,
  textFields: readonly string[],
  analyzers: readonly Analyzer[],
  log: Logger,
): Promise<CorpusLsaModel> {
  const started = performance.now();
  const texts = docs.map((d) => embeddableText(d.fields, textFields)).filter((t) => t.trim() !== '');
  const model = await trainCorpusLsa(texts, analyzers, record.settings.vectorDimensions!);
  log.info(
    { index: record.name, docs: model.docCount, terms: model.terms.size, rank: model.rank, ms: Math.round(performance.now() - started) },
    'embedder model trained',
  );
  return model;
}
