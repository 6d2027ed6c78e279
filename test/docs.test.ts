import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { errorSources, renderErrors, renderManifestSchema } from '../scripts/generate-docs.js';
import { pluginApiTables, updateTypeTables } from '../scripts/type-tables.js';
import { repoRoot } from './helpers/app.js';

describe('generated documentation', () => {
  it('docs/errors.md lists every error code the code defines (run `npm run docs` if this fails)', async () => {
    expect(readFileSync(`${repoRoot}docs/errors.md`, 'utf8')).toBe(renderErrors(await errorSources()));
  });

  it('docs/manifest.schema.json matches the manifest schema (run `npm run docs` if this fails)', () => {
    expect(readFileSync(`${repoRoot}docs/manifest.schema.json`, 'utf8')).toBe(renderManifestSchema());
  });

  it('the reference tables of docs/plugin-api.md match the type definitions (run `npm run docs` if this fails)', () => {
    const doc = readFileSync(`${repoRoot}docs/plugin-api.md`, 'utf8');
    expect(doc).toBe(updateTypeTables(doc, repoRoot));
  });

  it('the reference tables list each member the types declare, with its type and TSDoc', () => {
    const doc = updateTypeTables(readFileSync(`${repoRoot}docs/plugin-api.md`, 'utf8'), repoRoot);
    expect(pluginApiTables.map((t) => t.id)).toEqual(expect.arrayContaining(['ctx', 'route-definition', 'error-options', 'kernel-results-bm25']));
    expect(doc).toContain('| `successStatus?` | `number` | Success status for the OpenAPI document when it is not 200');
    expect(doc).toContain('| `plugin?` | `string` | The plugin the error was raised in');
    expect(doc).toContain('| `total` | `number` |');
    expect(doc).toContain('| `readonly listeners` |');
  });

  it('a stale table is detected: a member added to a type changes the page', () => {
    const doc = readFileSync(`${repoRoot}docs/plugin-api.md`, 'utf8');
    const stale = doc.replace(/\| `successStatus\?` \|[^\n]*\n/, '');
    expect(stale).not.toBe(doc);
    expect(updateTypeTables(stale, repoRoot)).toBe(doc);
  });

  it('every runtime error code is unique', async () => {
    const codes = (await errorSources()).flatMap((s) => s.codes.map((c) => c.code));
    expect(new Set(codes).size).toBe(codes.length);
  });
});
