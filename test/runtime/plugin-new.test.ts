import { spawnSync } from 'node:child_process';
import { mkdirSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { repoRoot, tempDir } from '../helpers/app.js';
import { cliPath } from '../helpers/cli.js';

const tessera = JSON.parse(readFileSync(path.join(repoRoot, 'package.json'), 'utf8')) as { name: string; version: string };

function pluginNew(...args: string[]): { status: number | null; stdout: string; stderr: string } {
  const result = spawnSync(process.execPath, [cliPath, 'plugin', 'new', ...args], { encoding: 'utf8' });
  return { status: result.status, stdout: result.stdout, stderr: result.stderr };
}

function files(dir: string, prefix = ''): string[] {
  return readdirSync(dir, { withFileTypes: true })
    .flatMap((e) => (e.isDirectory() ? files(path.join(dir, e.name), `${prefix}${e.name}/`) : [`${prefix}${e.name}`]))
    .sort();
}

describe('tessera plugin new', () => {
  it('writes a JavaScript plugin package named after the folder, depending on this Tessera by its package name', () => {
    const dir = path.join(tempDir(), 'tessera-plugin-notes');
    const { status, stdout } = pluginNew(dir);
    expect(status).toBe(0);
    expect(stdout).toContain('Created plugin "notes"');
    expect(files(dir)).toEqual(['.gitignore', 'README.md', 'index.js', 'package.json', 'test/plugin.test.js']);
    const pkg = JSON.parse(readFileSync(path.join(dir, 'package.json'), 'utf8'));
    expect(pkg).toMatchObject({
      name: 'tessera-plugin-notes',
      type: 'module',
      exports: './index.js',
      scripts: { test: 'vitest run' },
      peerDependencies: { [tessera.name]: `^${tessera.version}` },
      devDependencies: { [tessera.name]: `^${tessera.version}`, vitest: '4.1.12' },
    });
    const source = readFileSync(path.join(dir, 'index.js'), 'utf8');
    expect(source).toContain(`import { definePlugin, z } from '${tessera.name}/plugin';`);
    expect(source).toContain("name: 'notes'");
    expect(source).toContain('await ctx.store.format(DATA_FORMAT);');
    expect(source).toContain("path: '/hello'");
    expect(readFileSync(path.join(dir, 'test/plugin.test.js'), 'utf8')).toContain(`import { createTestApp } from '${tessera.name}/testing';`);
  });

  it('with --ts writes TypeScript and a tsconfig that checks every declaration file', () => {
    const dir = path.join(tempDir(), 'greeter');
    expect(pluginNew(dir, '--name', 'greet', '--ts').status).toBe(0);
    expect(files(dir)).toEqual(['.gitignore', 'README.md', 'index.ts', 'package.json', 'test/plugin.test.ts', 'tsconfig.json']);
    const tsconfig = JSON.parse(readFileSync(path.join(dir, 'tsconfig.json'), 'utf8'));
    expect(tsconfig.compilerOptions).toMatchObject({ skipLibCheck: false, strict: true, module: 'NodeNext', outDir: 'dist' });
    const pkg = JSON.parse(readFileSync(path.join(dir, 'package.json'), 'utf8'));
    expect(pkg.name).toBe('tessera-plugin-greet');
    expect(pkg.exports).toEqual({ '.': { types: './dist/index.d.ts', default: './dist/index.js' } });
    expect(pkg.scripts).toEqual({ build: 'tsc', prepack: 'tsc', test: 'tsc --noEmit && vitest run' });
    expect(Object.keys(pkg.devDependencies).sort()).toEqual(['@types/node', tessera.name, 'typescript', 'vitest'].sort());
    expect(readFileSync(path.join(dir, 'index.ts'), 'utf8')).toContain("name: 'greet'");
  });

  it('refuses a folder that is not empty, and a name that cannot be a plugin name', () => {
    const dir = tempDir();
    mkdirSync(path.join(dir, 'taken'));
    writeFileSync(path.join(dir, 'taken', 'index.js'), 'mine');
    const taken = pluginNew(path.join(dir, 'taken'));
    expect(taken.status).toBe(1);
    expect(taken.stderr).toBe(`tessera plugin: ${path.join(dir, 'taken')} exists and is not empty; choose a new folder.\n`);
    expect(readFileSync(path.join(dir, 'taken', 'index.js'), 'utf8')).toBe('mine');
    const bad = pluginNew(path.join(dir, 'x'), '--name', 'Notes!');
    expect(bad.status).toBe(2);
    expect(bad.stderr).toContain('"Notes!" cannot be a plugin name');
    const usage = spawnSync(process.execPath, [cliPath, 'plugin', 'new'], { encoding: 'utf8' });
    expect(usage.status).toBe(2);
    expect(usage.stderr).toContain('Usage: tessera plugin new <dir> [--name <name>] [--ts]');
  });
});
