import type { Declaration } from '../code/extract.js';
import type { TreeReader } from '../patches/verify.js';

export interface Grounding {
  /** Declarations relevant to the ticket, best first. */
  declarations: Declaration[];
  /** Their callers and callees (graph neighbours). */
  neighbours: Array<{ declaration: Declaration; relation: 'caller' | 'callee'; of: string }>;
  /** Files whose text goes into the prompt, most relevant first. */
  files: string[];
  /** The prompt section: declarations, relations and file contents, bounded by the character budget. */
  text: string;
}

/** What grounding reads of a repository's code index (CodeIndex, bound to a tenant and repository). */
export interface CodeLookup {
  /** Declarations relevant to the text, best first (hybrid search over the declaration index). */
  relevant(text: string, size: number): Promise<Declaration[]>;
  /** Ids of a declaration's callers (`in`) or callees (`out`) in the graph. */
  calls(id: string, direction: 'in' | 'out'): string[];
  declaration(id: string): Declaration | undefined;
}

export { keywordsOf } from '../code/words.js';

const testFile = /(^|\/)(tests?\/|test_)|\.test\.|_test\./;

/** Declarations a prompt shows, and callers and callees. */
const maxDeclarations = 8;
const maxNeighbours = 12;

/**
 * Grounds a prompt in the code knowledge graph: a hybrid (keyword + vector) search of the
 * repository's declaration index with the ticket's words, then the callers and callees of the
 * declarations found (graph neighbours), then the files holding them (plus the files named by the
 * ticket or the request), whole when the budget allows.
 */
export async function ground(code: CodeLookup, read: TreeReader, o: { text: string; files: string[]; maxChars: number; paths: string[] }): Promise<Grounding> {
  // Tests are reached as callers of what matched, not matched themselves: they show the expected behaviour.
  const ranked = (await code.relevant(o.text, maxDeclarations * 5)).filter((d) => d.kind !== 'module' && !testFile.test(d.file)).slice(0, maxDeclarations);
  const chosen = new Set(ranked.map((d) => d.id));
  const byId = new Map(ranked.map((d) => [d.id, d]));
  const neighbours: Grounding['neighbours'] = [];
  const seen = new Set<string>();
  for (const d of ranked) {
    for (const [relation, direction] of [
      ['caller', 'in'],
      ['callee', 'out'],
    ] as const) {
      for (const id of code.calls(d.id, direction)) {
        if (neighbours.length >= maxNeighbours) break;
        if (chosen.has(id) || seen.has(`${relation} ${id} ${d.id}`)) continue;
        const n = code.declaration(id);
        if (!n || (relation === 'caller' && n.kind === 'module')) continue;
        seen.add(`${relation} ${id} ${d.id}`);
        neighbours.push({ declaration: n, relation, of: d.id });
      }
    }
  }
  const mentioned = o.paths.filter((p) => o.text.includes(p));
  const files: string[] = [];
  const add = (f: string) => {
    if (!files.includes(f)) files.push(f);
  };
  for (const f of [...o.files, ...mentioned, ...ranked.map((d) => d.file), ...neighbours.map((n) => n.declaration.file)]) add(f);

  const lines: string[] = [];
  if (ranked.length) {
    lines.push('Declarations relevant to the ticket:');
    for (const d of ranked) lines.push(`- ${d.kind} ${d.qualifiedName} (${d.file}:${d.startLine}): ${d.signature}`);
  }
  if (neighbours.length) {
    lines.push('Callers and callees:');
    for (const n of neighbours)
      lines.push(
        `- ${n.declaration.qualifiedName} (${n.declaration.file}:${n.declaration.startLine}) is a ${n.relation} of ${byId.get(n.of)?.qualifiedName ?? n.of}`,
      );
  }
  let budget = o.maxChars;
  const shown: string[] = [];
  for (const f of files) {
    const entry = await read(f);
    if (entry?.kind !== 'file') continue;
    const body = entry.text.length > budget ? `${entry.text.slice(0, Math.max(0, budget))}\n... (cut: the file is longer)\n` : entry.text;
    if (budget <= 200) break;
    lines.push(`\n--- file: ${f} ---\n${body}`);
    shown.push(f);
    budget -= body.length;
  }
  return { declarations: ranked, neighbours, files: shown, text: lines.join('\n') };
}
