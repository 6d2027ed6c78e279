import { createRequire } from 'node:module';
import path from 'node:path';
import { Language, Parser } from 'web-tree-sitter';

/** A language by file name; `grammar` names the @vscode/tree-sitter-wasm grammar when one parses it. */
export interface LanguageInfo {
  name: string;
  grammar?: string;
}

const byExtension: Record<string, LanguageInfo> = {
  py: { name: 'python', grammar: 'python' },
  pyi: { name: 'python', grammar: 'python' },
  ts: { name: 'typescript', grammar: 'typescript' },
  mts: { name: 'typescript', grammar: 'typescript' },
  cts: { name: 'typescript', grammar: 'typescript' },
  tsx: { name: 'tsx', grammar: 'tsx' },
  js: { name: 'javascript', grammar: 'javascript' },
  mjs: { name: 'javascript', grammar: 'javascript' },
  cjs: { name: 'javascript', grammar: 'javascript' },
  jsx: { name: 'javascript', grammar: 'javascript' },
  go: { name: 'go', grammar: 'go' },
  java: { name: 'java', grammar: 'java' },
  rs: { name: 'rust', grammar: 'rust' },
  cs: { name: 'csharp', grammar: 'c-sharp' },
  cpp: { name: 'cpp', grammar: 'cpp' },
  cc: { name: 'cpp', grammar: 'cpp' },
  hpp: { name: 'cpp', grammar: 'cpp' },
  php: { name: 'php', grammar: 'php' },
  rb: { name: 'ruby', grammar: 'ruby' },
  sh: { name: 'bash', grammar: 'bash' },
  bash: { name: 'bash', grammar: 'bash' },
  css: { name: 'css', grammar: 'css' },
  c: { name: 'c' },
  h: { name: 'c' },
  json: { name: 'json' },
  md: { name: 'markdown' },
  yml: { name: 'yaml' },
  yaml: { name: 'yaml' },
  toml: { name: 'toml' },
  html: { name: 'html' },
  sql: { name: 'sql' },
  txt: { name: 'text' },
  cfg: { name: 'ini' },
  ini: { name: 'ini' },
};

const byName: Record<string, LanguageInfo> = { Dockerfile: { name: 'dockerfile' }, Makefile: { name: 'make' } };

/** The language of a file from its name, or `undefined`. */
export function languageOf(file: string): LanguageInfo | undefined {
  const base = file.slice(file.lastIndexOf('/') + 1);
  if (byName[base]) return byName[base];
  const dot = base.lastIndexOf('.');
  return dot > 0 ? byExtension[base.slice(dot + 1).toLowerCase()] : undefined;
}

/** Every grammar the agent loads: `tree-sitter-<grammar>.wasm` of @vscode/tree-sitter-wasm. */
export const grammars = [...new Set(Object.values(byExtension).flatMap((l) => (l.grammar ? [l.grammar] : [])))];

/** Grammars whose declarations, calls and imports the knowledge graph extracts. */
export const graphLanguages = ['python', 'typescript', 'tsx', 'javascript'];

const require = createRequire(import.meta.url);
const wasmDir = path.join(path.dirname(require.resolve('@vscode/tree-sitter-wasm/package.json')), 'wasm');
let init: Promise<void> | undefined;
const loaded = new Map<string, Promise<Language>>();

/** The grammar, loaded once per process (web-tree-sitter's runtime initialised on first use). */
export function loadGrammar(grammar: string): Promise<Language> {
  let p = loaded.get(grammar);
  if (!p) {
    init ??= Parser.init();
    p = init.then(() => Language.load(path.join(wasmDir, `tree-sitter-${grammar}.wasm`)));
    loaded.set(grammar, p);
    p.catch(() => loaded.delete(grammar));
  }
  return p;
}

/** A parser set to the grammar of `file`, or `undefined` when no grammar parses it. */
export async function parserFor(file: string): Promise<{ parser: Parser; language: LanguageInfo } | undefined> {
  const language = languageOf(file);
  if (!language?.grammar) return undefined;
  const grammar = await loadGrammar(language.grammar);
  const parser = new Parser();
  parser.setLanguage(grammar);
  return { parser, language };
}
