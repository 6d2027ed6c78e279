import type { Declaration, FileSymbols } from './extract.js';

export interface GraphEdge {
  from: string;
  to: string;
  kind: 'contains' | 'calls' | 'imports';
  line?: number;
}

export interface CodeStats {
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
}

export interface LinkedCode {
  declarations: Declaration[];
  /** One per call site and import statement (a caller calling a name twice gives two). */
  edges: GraphEdge[];
  stats: CodeStats;
}

/** Resolves call sites to declarations by name (same file first) and imports to modules of the repository. */
export function link(files: FileSymbols[]): LinkedCode {
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
