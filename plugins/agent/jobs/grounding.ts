import type { Declaration } from '../code/extract.js';
import type { CodeGraph } from '../code/graph-store.js';
import type { TreeReader } from '../patches/verify.js';

export interface Grounding {
  /** Declarations matching the ticket's words, best first. */
  declarations: Declaration[];
  /** Their callers and callees (graph neighbours). */
  neighbours: Array<{ declaration: Declaration; relation: 'caller' | 'callee'; of: string }>;
  /** Files whose text goes into the prompt, most relevant first. */
  files: string[];
  /** The prompt section: declarations, relations and file contents, bounded by the character budget. */
  text: string;
}

const stop = new Set(
  'the and for with that this from when what which should would could into have has not are was were will can its our your their about after before does doesn test tests fix bug issue error wrong returns return value values function method class file code use used using make makes'.split(
    ' ',
  ),
);

const testFile = /(^|\/)(tests?\/|test_)|\.test\.|_test\./;

/** Lower-case words of a text, identifiers split at camelCase, snake_case, dots and slashes. */
export function keywordsOf(text: string): Set<string> {
  const words = new Set<string>();
  for (const token of text.match(/[A-Za-z_][A-Za-z0-9_]*/g) ?? []) {
    const parts = [token, ...token.split('_'), ...token.replace(/([a-z0-9])([A-Z])/g, '$1 $2').split(' ')];
    for (const p of parts) {
      const w = p.toLowerCase();
      if (w.length >= 3 && !stop.has(w)) words.add(w);
    }
  }
  return words;
}

function score(d: Declaration, words: Set<string>): number {
  if (d.kind === 'module') return 0;
  let s = 0;
  const name = d.name.toLowerCase();
  if (words.has(name)) s += 5;
  for (const part of keywordsOf(d.name)) if (part !== name && words.has(part)) s += 2;
  for (const part of keywordsOf(d.file)) if (words.has(part)) s += 1;
  for (const part of keywordsOf(d.qualifiedName)) if (part !== name && words.has(part)) s += 1;
  return s;
}

/**
 * Grounds a prompt in the code graph: keyword search over the declarations (name, qualified name
 * and file), then their callers and callees, then the files holding them (plus the files named by
 * the ticket or the request), whole when the budget allows.
 */
export async function ground(graph: CodeGraph, read: TreeReader, o: { text: string; files: string[]; maxChars: number; paths: string[] }): Promise<Grounding> {
  const words = keywordsOf(o.text);
  // Tests are reached as callers of what matched, not matched themselves: they show the expected behaviour.
  const ranked = graph.declarations
    .filter((d) => !testFile.test(d.file))
    .map((d) => ({ d, s: score(d, words) }))
    .filter((x) => x.s > 0)
    .sort((a, b) => b.s - a.s || (a.d.id < b.d.id ? -1 : 1))
    .slice(0, 8)
    .map((x) => x.d);
  const byId = new Map(graph.declarations.map((d) => [d.id, d]));
  const chosen = new Set(ranked.map((d) => d.id));
  const neighbours: Grounding['neighbours'] = [];
  for (const e of graph.edges) {
    if (e.kind !== 'calls' || neighbours.length >= 12) continue;
    if (chosen.has(e.to) && !chosen.has(e.from) && byId.get(e.from)?.kind !== 'module')
      neighbours.push({ declaration: byId.get(e.from)!, relation: 'caller', of: e.to });
    else if (chosen.has(e.from) && !chosen.has(e.to)) neighbours.push({ declaration: byId.get(e.to)!, relation: 'callee', of: e.from });
  }
  const mentioned = o.paths.filter((p) => o.text.includes(p));
  const files: string[] = [];
  const add = (f: string) => {
    if (!files.includes(f)) files.push(f);
  };
  for (const f of [...o.files, ...mentioned, ...ranked.map((d) => d.file), ...neighbours.map((n) => n.declaration.file)]) add(f);

  const lines: string[] = [];
  if (ranked.length) {
    lines.push('Declarations matching the ticket:');
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
