/**
 * A declaration as a document of the repository's code index (docs/agent-api.md, "Code knowledge
 * graph"), and back.
 */
import type { IndexSpec } from '../../search/index.js';
import type { Declaration, DeclarationKind } from './extract.js';
import { keywordsOf } from './words.js';

/** Characters of a declaration's first lines (and the comment above it) kept as its `snippet`. */
const snippetChars = 600;
const snippetLines = 6;

/**
 * The code index: declarations with vectors (`autoEmbed`, the built-in `corpus-lsa-v1`, which
 * learns from the index's own documents once it holds 200). `terms` holds the words of the name,
 * qualified name and path with identifiers split (`computeMean` -> `compute mean`), so that a
 * ticket's words find them.
 */
export function indexSpec(name: string): IndexSpec {
  return {
    name,
    mappings: {
      name: { type: 'text' },
      qualifiedName: { type: 'text' },
      terms: { type: 'text' },
      signature: { type: 'text' },
      snippet: { type: 'text' },
      kind: { type: 'keyword' },
      file: { type: 'keyword' },
      language: { type: 'keyword' },
      parent: { type: 'keyword', index: false },
      startLine: { type: 'number' },
      endLine: { type: 'number' },
      startColumn: { type: 'number' },
    },
    settings: {
      autoEmbed: true,
      embedder: { type: 'builtin', model: 'corpus-lsa-v1' },
      autocomplete: { titleField: 'name', categoryFields: ['kind', 'language'] },
    },
  };
}

/** The first lines of a declaration, with the comment lines right above it (JSDoc, `#`), bounded. */
export function snippetOf(d: Declaration, lines: readonly string[]): string {
  let from = d.startLine - 1;
  while (from > 0 && from > d.startLine - 1 - snippetLines && /^\s*(\/\/|\/\*|\*|#)/.test(lines[from - 1] ?? '')) from--;
  const to = Math.min(d.endLine, d.startLine - 1 + snippetLines);
  return lines
    .slice(from, to)
    .map((l) => l.trim())
    .filter(Boolean)
    .join('\n')
    .slice(0, snippetChars);
}

export function declarationDocument(d: Declaration, language: string, snippet: string): Record<string, unknown> {
  return {
    id: d.id,
    kind: d.kind,
    name: d.name,
    qualifiedName: d.qualifiedName,
    terms: [...keywordsOf(`${d.name} ${d.qualifiedName} ${d.file}`)].join(' '),
    signature: d.signature,
    snippet,
    file: d.file,
    language,
    ...(d.parent ? { parent: d.parent } : {}),
    startLine: d.startLine,
    endLine: d.endLine,
    startColumn: d.startColumn,
  };
}

/** The declaration a stored document holds (the knowledge graph's `declarations[]` shape). */
export function declarationOf(source: Record<string, unknown>): Declaration {
  return {
    id: source['id'] as string,
    kind: source['kind'] as DeclarationKind,
    name: source['name'] as string,
    qualifiedName: source['qualifiedName'] as string,
    file: source['file'] as string,
    startLine: source['startLine'] as number,
    endLine: source['endLine'] as number,
    startColumn: source['startColumn'] as number,
    signature: source['signature'] as string,
    ...(typeof source['parent'] === 'string' ? { parent: source['parent'] } : {}),
  };
}
