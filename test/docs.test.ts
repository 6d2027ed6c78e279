import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { errorSources, renderErrors, renderManifestSchema } from '../scripts/generate-docs.js';
import { repoRoot } from './helpers/app.js';

describe('generated documentation', () => {
  it('docs/errors.md lists every error code the code defines (run `npm run docs` if this fails)', async () => {
    expect(readFileSync(`${repoRoot}docs/errors.md`, 'utf8')).toBe(renderErrors(await errorSources()));
  });

  it('docs/manifest.schema.json matches the manifest schema (run `npm run docs` if this fails)', () => {
    expect(readFileSync(`${repoRoot}docs/manifest.schema.json`, 'utf8')).toBe(renderManifestSchema());
  });

  it('every runtime error code is unique', async () => {
    const codes = (await errorSources()).flatMap((s) => s.codes.map((c) => c.code));
    expect(new Set(codes).size).toBe(codes.length);
  });
});
