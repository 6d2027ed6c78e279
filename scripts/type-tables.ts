/**
 * The reference tables of docs/plugin-api.md, read from the type definitions themselves (member
 * names, optionality, types and TSDoc), so the page cannot promise a field the types lack or miss
 * one they have. `npm run docs` rewrites each section between its markers; test/docs.test.ts fails
 * when one is stale.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import ts from 'typescript';

export interface TypeTable {
  /** The marker name: `<!-- generated:types NAME -->` ... `<!-- end generated:types NAME -->`. */
  id: string;
  /** Source file, relative to the repository root. */
  file: string;
  /** Interfaces to list, in order; members of each, in declaration order. */
  types: string[];
}

export const pluginApiTables: TypeTable[] = [
  { id: 'ctx', file: 'runtime/plugin-types.ts', types: ['PluginContext'] },
  { id: 'app-info', file: 'runtime/plugin-types.ts', types: ['AppInfo'] },
  { id: 'route-definition', file: 'runtime/plugin-types.ts', types: ['RouteDefinition'] },
  { id: 'route-request', file: 'runtime/plugin-types.ts', types: ['RouteRequest'] },
  { id: 'error-options', file: 'runtime/errors.ts', types: ['ErrorOptions'] },
  { id: 'store-format', file: 'runtime/store.ts', types: ['FormatOptions', 'FormatChange'] },
  { id: 'kernel-results', file: 'kernels/src/top-k.ts', types: ['TopK', 'TopK64'] },
  { id: 'kernel-results-bm25', file: 'kernels/src/bm25-search.ts', types: ['Bm25Result'] },
  { id: 'kernel-results-geo', file: 'kernels/src/geo-nearest.ts', types: ['GeoResult'] },
];

interface Row {
  member: string;
  type: string;
  doc: string;
}

/** The markdown of one table: `| member | type | meaning |`, one row per member of each type. */
export function renderTypeTable(root: string, table: TypeTable): string {
  const text = readFileSync(path.join(root, table.file), 'utf8');
  const source = ts.createSourceFile(table.file, text, ts.ScriptTarget.ES2022, true);
  const lines: string[] = [];
  for (const name of table.types) {
    const node = source.statements.find((s): s is ts.InterfaceDeclaration => ts.isInterfaceDeclaration(s) && s.name.text === name);
    if (!node) throw new Error(`${table.file} declares no interface ${name} (docs table "${table.id}")`);
    const heritage = node.heritageClauses?.flatMap((h) => h.types.map((t) => t.getText(source))) ?? [];
    const title = `\`${name}\`${heritage.length ? ` (also has every member of ${heritage.map((h) => `\`${h}\``).join(', ')})` : ''}`;
    if (table.types.length > 1 || heritage.length) lines.push(`${title}:`, '');
    lines.push('| member | type | meaning |', '|---|---|---|');
    for (const row of membersOf(node, source)) lines.push(`| \`${row.member}\` | ${code(row.type)} | ${cell(row.doc)} |`);
    lines.push('');
  }
  return lines.join('\n');
}

function membersOf(node: ts.InterfaceDeclaration, source: ts.SourceFile): Row[] {
  const rows: Row[] = [];
  for (const member of node.members) {
    if (ts.isIndexSignatureDeclaration(member)) continue;
    const name = member.name?.getText(source) ?? '';
    const optional = 'questionToken' in member && member.questionToken ? '?' : '';
    const readonly = ts.getCombinedModifierFlags(member as ts.Declaration) & ts.ModifierFlags.Readonly ? 'readonly ' : '';
    let type: string;
    if (ts.isMethodSignature(member)) {
      const params = member.parameters.map((p) => p.getText(source)).join(', ');
      const generics = member.typeParameters ? `<${member.typeParameters.map((t) => t.getText(source)).join(', ')}>` : '';
      type = `${generics}(${params}) => ${member.type?.getText(source) ?? 'void'}`;
    } else if (ts.isPropertySignature(member)) {
      type = member.type?.getText(source) ?? 'unknown';
    } else continue;
    rows.push({ member: `${readonly}${name}${optional}`, type: flatten(type), doc: docOf(member, source) });
  }
  return rows;
}

function docOf(node: ts.Node, source: ts.SourceFile): string {
  const docs = (node as { jsDoc?: ts.JSDoc[] }).jsDoc ?? [];
  const text = docs.map((d) => (typeof d.comment === 'string' ? d.comment : (ts.getTextOfJSDocComment(d.comment) ?? ''))).join(' ');
  const tags = docs.flatMap((d) => d.tags ?? []).filter((t) => t.tagName.text === 'default');
  const defaults = tags.map((t) => `Default: ${typeof t.comment === 'string' ? t.comment : (ts.getTextOfJSDocComment(t.comment) ?? '')}.`);
  void source;
  return flatten([text, ...defaults].filter(Boolean).join(' '));
}

function flatten(text: string): string {
  // TSDoc inside an inline object type belongs to its own members, not to the type shown in a cell.
  return text
    .replace(/\/\*[\s\S]*?\*\//g, '')
    .replace(/\s+/g, ' ')
    .trim();
}

function code(type: string): string {
  // Types are shown whole; long ones (a handler's signature) stay readable in a cell.
  return `\`${type.replace(/\|/g, '\\|').replace(/`/g, "'")}\``;
}

function cell(text: string): string {
  return text === '' ? '' : text.replace(/\|/g, '\\|');
}

const start = (id: string): string => `<!-- generated:types ${id} (scripts/type-tables.ts; do not edit, run \`npm run docs\`) -->`;
const end = (id: string): string => `<!-- end generated:types ${id} -->`;

/** docs/plugin-api.md with every generated table rewritten from the types. */
export function updateTypeTables(doc: string, root: string, tables: TypeTable[] = pluginApiTables): string {
  let out = doc;
  for (const table of tables) {
    const from = out.indexOf(start(table.id));
    const to = out.indexOf(end(table.id));
    if (from === -1 || to === -1 || to < from) throw new Error(`docs/plugin-api.md has no markers for the "${table.id}" table`);
    out = `${out.slice(0, from)}${start(table.id)}\n\n${renderTypeTable(root, table)}${end(table.id)}${out.slice(to + end(table.id).length)}`;
  }
  return out;
}
