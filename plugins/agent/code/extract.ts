import type { Node, Tree } from 'web-tree-sitter';
import { parserFor } from './languages.js';

export type DeclarationKind = 'module' | 'class' | 'interface' | 'function' | 'method';

export interface Declaration {
  /** `<file>#<qualified name>` (`<file>` alone for the module). */
  id: string;
  kind: DeclarationKind;
  name: string;
  qualifiedName: string;
  file: string;
  startLine: number;
  endLine: number;
  startColumn: number;
  signature: string;
  /** The enclosing declaration's id. */
  parent?: string;
}

export interface CallSite {
  /** The enclosing declaration's id (the module's for top-level code). */
  caller: string;
  /** The called name as written last (`b` of `a.b()`). */
  callee: string;
  line: number;
}

export interface ImportSite {
  module: string;
  names: string[];
  line: number;
}

export interface FileSymbols {
  file: string;
  language: string;
  declarations: Declaration[];
  calls: CallSite[];
  imports: ImportSite[];
  /** ERROR and MISSING nodes in the tree. */
  syntaxErrors: number;
}

/** ERROR and MISSING nodes of a tree, with the first few positions. */
export function syntaxProblems(tree: Tree, keep = 5): { count: number; at: Array<{ line: number; column: number; kind: 'error' | 'missing' }> } {
  const at: Array<{ line: number; column: number; kind: 'error' | 'missing' }> = [];
  let count = 0;
  const cursor = tree.walk();
  let more = true;
  while (more) {
    const node = cursor.currentNode;
    if (node.isError || node.isMissing) {
      count++;
      if (at.length < keep) at.push({ line: node.startPosition.row + 1, column: node.startPosition.column + 1, kind: node.isMissing ? 'missing' : 'error' });
    }
    if (node.hasError && cursor.gotoFirstChild()) continue;
    while (!cursor.gotoNextSibling()) {
      if (!cursor.gotoParent()) {
        more = false;
        break;
      }
    }
  }
  cursor.delete();
  return { count, at };
}

/** Syntax errors of a file's text, or `undefined` when no grammar parses the file. */
export async function syntaxErrorsOf(file: string, text: string): Promise<ReturnType<typeof syntaxProblems> | undefined> {
  const p = await parserFor(file);
  if (!p) return undefined;
  const tree = p.parser.parse(text);
  p.parser.delete();
  if (!tree) return undefined;
  try {
    return syntaxProblems(tree);
  } finally {
    tree.delete();
  }
}

function moduleName(file: string, language: string): string {
  const noExt = file.replace(/\.[^./]+$/, '');
  if (language === 'python') return noExt.replace(/\/__init__$/, '').replaceAll('/', '.');
  return noExt;
}

function signatureOf(node: Node, head?: Node | null): string {
  const body = node.childForFieldName('body');
  const text = body ? node.text.slice(0, body.startIndex - node.startIndex) : node.text;
  const prefix = head ? head.text.slice(0, node.startIndex - head.startIndex) : '';
  return (prefix + text)
    .replace(/\s+/g, ' ')
    .replace(/\s*[:{]?\s*$/, '')
    .slice(0, 300);
}

const unquote = (s: string) => s.replace(/^['"`]|['"`]$/g, '');

/**
 * Declarations (module, classes, interfaces, functions, methods), call sites and imports of a Python,
 * TypeScript, TSX or JavaScript file. Other languages answer `undefined`.
 */
export async function extractSymbols(file: string, text: string): Promise<FileSymbols | undefined> {
  const p = await parserFor(file);
  if (!p || !['python', 'typescript', 'tsx', 'javascript'].includes(p.language.name)) {
    p?.parser.delete();
    return undefined;
  }
  const language = p.language.name;
  const tree = p.parser.parse(text);
  p.parser.delete();
  if (!tree) return undefined;
  const root = tree.rootNode;
  const mod: Declaration = {
    id: file,
    kind: 'module',
    name: moduleName(file, language),
    qualifiedName: moduleName(file, language),
    file,
    startLine: 1,
    endLine: root.endPosition.row + 1,
    startColumn: 1,
    signature: '',
  };
  const out: FileSymbols = { file, language, declarations: [mod], calls: [], imports: [], syntaxErrors: syntaxProblems(tree, 0).count };
  const python = language === 'python';

  const declare = (node: Node, kind: DeclarationKind, name: string, scope: Declaration, head?: Node | null): Declaration => {
    const qualifiedName = scope.kind === 'module' ? name : `${scope.qualifiedName}.${name}`;
    const d: Declaration = {
      id: `${file}#${qualifiedName}`,
      kind,
      name,
      qualifiedName,
      file,
      startLine: (head ?? node).startPosition.row + 1,
      endLine: node.endPosition.row + 1,
      startColumn: (head ?? node).startPosition.column + 1,
      signature: signatureOf(node, head),
      parent: scope.id,
    };
    out.declarations.push(d);
    return d;
  };

  const visit = (node: Node, scope: Declaration): void => {
    let inner = scope;
    const t = node.type;
    const name = node.childForFieldName('name')?.text;
    if (python) {
      if (t === 'class_definition' && name) inner = declare(node, 'class', name, scope);
      else if (t === 'function_definition' && name) inner = declare(node, scope.kind === 'class' ? 'method' : 'function', name, scope);
      else if (t === 'call') {
        const fn = node.childForFieldName('function');
        const callee = fn?.type === 'attribute' ? fn.childForFieldName('attribute')?.text : fn?.text;
        if (callee) out.calls.push({ caller: scope.id, callee, line: node.startPosition.row + 1 });
      } else if (t === 'import_statement') {
        for (const n of node.childrenForFieldName('name')) {
          const m = n.type === 'aliased_import' ? n.childForFieldName('name')?.text : n.text;
          if (m) out.imports.push({ module: m, names: [], line: node.startPosition.row + 1 });
        }
      } else if (t === 'import_from_statement') {
        const m = node.childForFieldName('module_name')?.text ?? '';
        const names = node.childrenForFieldName('name').map((n) => (n.type === 'aliased_import' ? (n.childForFieldName('name')?.text ?? n.text) : n.text));
        out.imports.push({ module: m, names, line: node.startPosition.row + 1 });
      }
    } else {
      if ((t === 'class_declaration' || t === 'abstract_class_declaration' || t === 'class') && name) inner = declare(node, 'class', name, scope);
      else if (t === 'interface_declaration' && name) inner = declare(node, 'interface', name, scope);
      else if ((t === 'function_declaration' || t === 'generator_function_declaration') && name) inner = declare(node, 'function', name, scope);
      else if (t === 'method_definition' && name) inner = declare(node, 'method', name, scope);
      else if (t === 'variable_declarator' && name) {
        const value = node.childForFieldName('value');
        if (value && (value.type === 'arrow_function' || value.type === 'function_expression' || value.type === 'function')) {
          const head = node.parent?.type === 'lexical_declaration' || node.parent?.type === 'variable_declaration' ? node.parent : node;
          const d = declare(value, 'function', name, scope, head);
          for (const c of value.namedChildren) if (c) visit(c, d);
          return;
        }
      } else if (t === 'call_expression' || t === 'new_expression') {
        const fn = node.childForFieldName(t === 'call_expression' ? 'function' : 'constructor');
        const callee = fn?.type === 'member_expression' ? fn.childForFieldName('property')?.text : fn?.text;
        if (callee === 'require' || fn?.type === 'import') {
          const arg = node.childForFieldName('arguments')?.namedChildren[0];
          if (arg?.type === 'string') out.imports.push({ module: unquote(arg.text), names: [], line: node.startPosition.row + 1 });
        } else if (callee && /^[A-Za-z_$][\w$]*$/.test(callee)) out.calls.push({ caller: scope.id, callee, line: node.startPosition.row + 1 });
      } else if (t === 'import_statement' || (t === 'export_statement' && node.childForFieldName('source'))) {
        const source = node.childForFieldName('source');
        const names: string[] = [];
        for (const spec of node.descendantsOfType(['import_specifier', 'export_specifier', 'namespace_import', 'identifier'])) {
          if (!spec) continue;
          if (spec.type === 'identifier' && spec.parent?.type !== 'import_clause') continue;
          names.push(spec.childForFieldName('name')?.text ?? spec.text);
        }
        if (source) out.imports.push({ module: unquote(source.text), names: [...new Set(names)], line: node.startPosition.row + 1 });
      }
    }
    for (const c of node.namedChildren) if (c) visit(c, inner);
  };
  visit(root, mod);
  tree.delete();
  return out;
}
