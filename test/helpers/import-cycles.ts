/**
 * Import cycles among the TypeScript files of a tree, type-only imports included: a circle of
 * files means two concepts that each need the other, which is one concept split badly or a shared
 * piece that belongs in a file of its own.
 */
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';
import ts from 'typescript';

function sourceFiles(dir: string): string[] {
  const out: string[] = [];
  for (const entry of readdirSync(dir)) {
    const path = join(dir, entry);
    if (statSync(path).isDirectory()) out.push(...sourceFiles(path));
    else if (/\.(m|c)?tsx?$/.test(entry) && !entry.endsWith('.d.ts')) out.push(path);
  }
  return out;
}

/** The source file a relative specifier names (`./x.js` is `./x.ts` in the source tree). */
function target(file: string, specifier: string): string | undefined {
  const base = resolve(dirname(file), specifier);
  const candidates = [base.replace(/\.js$/, '.ts'), base.replace(/\.mjs$/, '.mts'), base.replace(/\.js$/, '.tsx'), `${base}.ts`, join(base, 'index.ts')];
  return candidates.find((c) => existsSync(c) && statSync(c).isFile());
}

/** Each cycle as the files in it (relative to `dir`, sorted); files in no cycle are left out. */
export function importCycles(dir: string): string[][] {
  const root = resolve(dir);
  const graph = new Map<string, string[]>();
  for (const file of sourceFiles(root)) {
    const refs = ts.preProcessFile(readFileSync(file, 'utf8'), true, true).importedFiles;
    graph.set(
      file,
      refs.filter((r) => r.fileName.startsWith('.')).flatMap((r) => target(file, r.fileName) ?? []),
    );
  }
  // Tarjan's strongly connected components: a component of more than one file is a cycle.
  let next = 0;
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const cycles: string[][] = [];
  const visit = (v: string): void => {
    index.set(v, next);
    low.set(v, next++);
    stack.push(v);
    onStack.add(v);
    for (const w of graph.get(v) ?? []) {
      if (!index.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v)!, low.get(w)!));
      } else if (onStack.has(w)) low.set(v, Math.min(low.get(v)!, index.get(w)!));
    }
    if (low.get(v) !== index.get(v)) return;
    const component: string[] = [];
    let w: string;
    do {
      w = stack.pop()!;
      onStack.delete(w);
      component.push(relative(root, w).split(sep).join('/'));
    } while (w !== v);
    if (component.length > 1 || (graph.get(v) ?? []).includes(v)) cycles.push(component.sort());
  };
  for (const file of graph.keys()) if (!index.has(file)) visit(file);
  return cycles;
}
