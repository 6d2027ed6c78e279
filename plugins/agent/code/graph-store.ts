import type { PluginContext } from 'tessera-runtime/plugin';
import { listFiles, readBlobs } from '../repos/files.js';
import type { Checkout } from '../repos/repositories.js';
import { extractSymbols, type Declaration, type FileSymbols } from './extract.js';
import { graphLanguages, languageOf } from './languages.js';

interface FileEntry {
  blob: string;
  symbols: FileSymbols;
}

export interface GraphEdge {
  from: string;
  to: string;
  kind: 'contains' | 'calls' | 'imports';
  line?: number;
}

export interface CodeGraph {
  commit: string;
  declarations: Declaration[];
  edges: GraphEdge[];
  stats: {
    files: number;
    parsedFiles: number;
    reusedFiles: number;
    removedFiles: number;
    declarations: number;
    byKind: Record<string, number>;
    calls: number;
    resolvedCalls: number;
    imports: number;
    resolvedImports: number;
    filesWithSyntaxErrors: number;
  };
}

/**
 * The declarations, calls and imports of each parsed file of a repository, kept per tenant and
 * repository in the plugin's store and updated incrementally: a file whose git blob id (its content
 * hash) is unchanged is not parsed again.
 */
export class CodeGraphStore {
  private readonly files;
  private readonly heads;

  constructor(store: PluginContext['store']) {
    this.files = store.db('code-files');
    this.heads = store.db('code-heads');
  }

  /** Brings the stored parses of `tenant`'s `repo` to `commit` and answers the graph. */
  async update(tenant: string, c: Checkout, commit: string): Promise<CodeGraph> {
    const repo = c.ref.full;
    const tree = (await listFiles(c, commit)).filter((f) => graphLanguages.includes(languageOf(f.path)?.name ?? ''));
    const stored = new Map<string, FileEntry>();
    for (const { key, value } of this.files.getRange({ start: [tenant, repo], end: [tenant, repo, '\uffff'] }))
      stored.set((key as string[])[2]!, value as FileEntry);
    const changed = tree.filter((f) => stored.get(f.path)?.blob !== f.blob);
    const texts = await readBlobs(c, [...new Set(changed.map((f) => f.blob))]);
    const parsed: Array<[string, FileEntry]> = [];
    for (const f of changed) {
      const symbols = await extractSymbols(f.path, texts.get(f.blob) ?? '');
      if (symbols) parsed.push([f.path, { blob: f.blob, symbols }]);
    }
    const present = new Set(tree.map((f) => f.path));
    const removed = [...stored.keys()].filter((p) => !present.has(p));
    await this.files.transaction(() => {
      for (const [file, entry] of parsed) void this.files.put([tenant, repo, file], entry);
      for (const file of removed) void this.files.remove([tenant, repo, file]);
      void this.heads.put([tenant, repo], { commit, at: new Date().toISOString() });
    });
    for (const [file, entry] of parsed) stored.set(file, entry);
    for (const file of removed) stored.delete(file);
    const graph = link([...stored.values()].map((e) => e.symbols));
    graph.stats.files = stored.size;
    graph.stats.parsedFiles = parsed.length;
    graph.stats.reusedFiles = stored.size - parsed.length;
    graph.stats.removedFiles = removed.length;
    return { commit, ...graph };
  }

  /** Forgets every stored parse of a tenant's repository. */
  async clear(tenant: string, repo: string): Promise<void> {
    await this.files.transaction(() => {
      for (const key of this.files.getKeys({ start: [tenant, repo], end: [tenant, repo, '\uffff'] })) void this.files.remove(key);
      void this.heads.remove([tenant, repo]);
    });
  }
}

/** Resolves call sites to declarations by name (same file first) and imports to modules of the repository. */
export function link(files: FileSymbols[]): Omit<CodeGraph, 'commit'> {
  const declarations = files.flatMap((f) => f.declarations).sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
  const byName = new Map<string, Declaration[]>();
  const modules = new Map<string, Declaration>();
  for (const d of declarations) {
    if (d.kind === 'module') {
      modules.set(d.qualifiedName, d);
      modules.set(d.file, d);
      continue;
    }
    if (d.kind === 'interface') continue;
    const list = byName.get(d.name) ?? [];
    list.push(d);
    byName.set(d.name, list);
  }
  const edges: GraphEdge[] = [];
  for (const d of declarations) if (d.parent) edges.push({ from: d.parent, to: d.id, kind: 'contains' });
  let calls = 0;
  let resolvedCalls = 0;
  let imports = 0;
  let resolvedImports = 0;
  for (const f of files) {
    for (const call of f.calls) {
      calls++;
      const candidates = byName.get(call.callee) ?? [];
      const local = candidates.filter((d) => d.file === f.file);
      const targets = local.length ? local : candidates;
      if (targets.length) resolvedCalls++;
      for (const t of targets) edges.push({ from: call.caller, to: t.id, kind: 'calls', line: call.line });
    }
    for (const imp of f.imports) {
      imports++;
      const target = resolveImport(f, imp.module, modules);
      if (target) {
        resolvedImports++;
        edges.push({ from: f.file, to: target.id, kind: 'imports', line: imp.line });
      }
    }
  }
  const byKind: Record<string, number> = {};
  for (const d of declarations) byKind[d.kind] = (byKind[d.kind] ?? 0) + 1;
  return {
    declarations,
    edges,
    stats: {
      files: files.length,
      parsedFiles: 0,
      reusedFiles: 0,
      removedFiles: 0,
      declarations: declarations.length,
      byKind,
      calls,
      resolvedCalls,
      imports,
      resolvedImports,
      filesWithSyntaxErrors: files.filter((f) => f.syntaxErrors > 0).length,
    },
  };
}

function resolveImport(f: FileSymbols, spec: string, modules: Map<string, Declaration>): Declaration | undefined {
  if (f.language === 'python') {
    if (!spec.startsWith('.')) return modules.get(spec);
    const dots = /^\.+/.exec(spec)![0].length;
    const pkg = f.file.split('/').slice(0, -1);
    const base = pkg.slice(0, pkg.length - (dots - 1));
    const rest = spec.slice(dots);
    return modules.get([...base, ...(rest ? rest.split('.') : [])].join('.'));
  }
  if (!spec.startsWith('.')) return undefined;
  const dir = f.file.split('/').slice(0, -1);
  for (const part of spec.split('/')) {
    if (part === '..') dir.pop();
    else if (part !== '.') dir.push(part);
  }
  const target = dir.join('/');
  const stem = target.replace(/\.(js|mjs|cjs|jsx|ts|tsx)$/, '');
  for (const candidate of [target, stem, `${stem}/index`]) {
    for (const ext of ['', '.ts', '.tsx', '.js', '.mjs', '.cjs', '.jsx', '.mts']) {
      const m = modules.get(candidate + ext);
      if (m && m.file === candidate + ext) return m;
    }
  }
  return undefined;
}
