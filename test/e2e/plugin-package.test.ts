/**
 * What a third-party plugin author does, end to end: pack Tessera, scaffold a plugin with
 * `tessera plugin new` and pack it, install both into a new folder with a plain `npm install`, run
 * the scaffold's own `npm test` (JavaScript and TypeScript), and serve the plugin from a manifest.
 * Dependencies come from the npm registry; the two packages are local tarballs. Slow (an npm
 * install with native builds): one file, one install.
 */
import { execFile, spawn } from 'node:child_process';
import { cpSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { json, repoRoot, tempDir } from '../helpers/app.js';

const run = promisify(execFile);
const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';
const tessera = JSON.parse(readFileSync(path.join(repoRoot, 'package.json'), 'utf8')) as { name: string; version: string };

/** npm's own variables from an `npm test` run would leak into the child installs (prefix, cache flags); colours would garble the output read. */
function cleanEnv(): NodeJS.ProcessEnv {
  const env = Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.toLowerCase().startsWith('npm_') && k !== 'FORCE_COLOR'));
  return { ...env, NO_COLOR: '1' };
}

async function sh(command: string, args: string[], cwd: string, timeout = 600_000): Promise<string> {
  try {
    const { stdout } = await run(command, args, { cwd, env: cleanEnv(), timeout, maxBuffer: 64 * 1024 * 1024 });
    // Colour codes from the scaffold's test runner: ESC [ ... m.
    return stdout.replace(new RegExp(`${String.fromCharCode(27)}\\[[0-9;]*m`, 'g'), '');
  } catch (err) {
    const e = err as { stdout?: string; stderr?: string; message: string };
    throw new Error(`${command} ${args.join(' ')} in ${cwd} failed: ${e.message}\n${e.stdout ?? ''}\n${e.stderr ?? ''}`);
  }
}

async function registryReachable(): Promise<string | undefined> {
  const registry = (await sh(npm, ['config', 'get', 'registry'], repoRoot, 30_000)).trim() || 'https://registry.npmjs.org/';
  try {
    const res = await fetch(new URL('vitest', registry.endsWith('/') ? registry : `${registry}/`), { signal: AbortSignal.timeout(15_000) });
    await res.body?.cancel();
    return res.ok ? undefined : `the npm registry ${registry} answered ${res.status}`;
  } catch (err) {
    return `the npm registry ${registry} is unreachable (${(err as Error).message})`;
  }
}

const unreachable = await registryReachable();
if (unreachable) console.warn(`SKIPPED test/e2e/plugin-package.test.ts: ${unreachable}; it installs dependencies from the registry.`);

describe.skipIf(unreachable !== undefined)('a plugin package installed next to a packed Tessera', () => {
  const root = tempDir('tessera-plugin-package-');
  const packs = path.join(root, 'packs');
  const deployment = path.join(root, 'deployment');
  const cli = path.join(repoRoot, 'bin/tessera.js');
  let pluginTarball: string;

  beforeAll(async () => {
    mkdirSync(packs);
    const packed = JSON.parse(await sh(npm, ['pack', '--json', '--pack-destination', packs], repoRoot)) as Array<{ filename: string }>;
    const tesseraTarball = path.join(packs, packed[0]!.filename);

    // The JavaScript scaffold, packed as its author would publish it.
    await sh(process.execPath, [cli, 'plugin', 'new', path.join(root, 'src', 'hello'), '--name', 'hello'], root);
    const plugin = JSON.parse(await sh(npm, ['pack', '--json', '--pack-destination', packs], path.join(root, 'src', 'hello'))) as Array<{ filename: string }>;
    pluginTarball = path.join(packs, plugin[0]!.filename);

    mkdirSync(deployment);
    const scaffoldPkg = JSON.parse(readFileSync(path.join(root, 'src', 'hello', 'package.json'), 'utf8')) as { devDependencies: Record<string, string> };
    writeFileSync(
      path.join(deployment, 'package.json'),
      JSON.stringify({
        name: 'hello-deployment',
        private: true,
        type: 'module',
        dependencies: {
          [tessera.name]: `file:${path.relative(deployment, tesseraTarball)}`,
          'tessera-plugin-hello': `file:${path.relative(deployment, pluginTarball)}`,
        },
        // What the scaffolds' own tests need: the versions they pin.
        devDependencies: { vitest: scaffoldPkg.devDependencies.vitest, typescript: '5.9.3', '@types/node': '20.19.43' },
      }),
    );
    await sh(npm, ['install', '--no-audit', '--no-fund'], deployment, 900_000);
  }, 1_200_000);
  afterAll(() => rmSync(root, { recursive: true, force: true }));

  it('the scaffold declares Tessera as a peer and dev dependency by its package name', () => {
    const pkg = JSON.parse(readFileSync(path.join(root, 'src', 'hello', 'package.json'), 'utf8')) as Record<string, Record<string, string>>;
    expect(pkg.peerDependencies).toEqual({ [tessera.name]: `^${tessera.version}` });
    expect(pkg.devDependencies![tessera.name]).toBe(`^${tessera.version}`);
    expect(readFileSync(path.join(root, 'src', 'hello', 'index.js'), 'utf8')).toContain(`from '${tessera.name}/plugin'`);
  });

  it("passes the JavaScript scaffold's own npm test against the installed package", async () => {
    cpSync(path.join(root, 'src', 'hello'), path.join(deployment, 'hello-src'), { recursive: true });
    const out = await sh(npm, ['test'], path.join(deployment, 'hello-src'));
    expect(out).toMatch(/Tests\s+3 passed \(3\)/);
  }, 300_000);

  it("passes the TypeScript scaffold's npm test: tsc with skipLibCheck false, then its tests", async () => {
    const dir = path.join(deployment, 'greet-ts');
    await sh(process.execPath, [cli, 'plugin', 'new', dir, '--name', 'greet', '--ts'], root);
    expect(JSON.parse(readFileSync(path.join(dir, 'tsconfig.json'), 'utf8')).compilerOptions.skipLibCheck).toBe(false);
    const out = await sh(npm, ['test'], dir);
    expect(out).toMatch(/Tests\s+3 passed \(3\)/);
    // The build a publish runs (prepack) compiles too, to the file its exports name.
    await sh(npm, ['run', 'build'], dir);
    expect(readFileSync(path.join(dir, 'dist', 'index.js'), 'utf8')).toContain("name: 'greet'");
    // A built-in's public entry type-checks the same way (skipLibCheck false).
    writeFileSync(
      path.join(dir, 'test', 'search-types.ts'),
      `import { SEARCH_SERVICE, type SearchService, type IndexInfo } from '${tessera.name}/plugins/search';\n` +
        `export const token = SEARCH_SERVICE;\nexport const count = (s: SearchService): IndexInfo[] => s.indexes('default');\n`,
    );
    await sh(npm, ['exec', '--', 'tsc', '--noEmit'], dir);
  }, 300_000);

  it('serves the installed plugin from a manifest with the installed tessera command', async () => {
    // A local plugin that uses the built-in search through its public entry: the token must be the very one search provides.
    mkdirSync(path.join(deployment, 'stats'));
    writeFileSync(
      path.join(deployment, 'stats', 'index.js'),
      [
        `import { definePlugin } from '${tessera.name}/plugin';`,
        `import { SEARCH_SERVICE } from '${tessera.name}/plugins/search';`,
        "export default definePlugin({ name: 'stats', version: '1.0.0', dependsOn: ['search'], setup(ctx) {",
        '  const search = ctx.container.resolve(SEARCH_SERVICE);',
        "  ctx.routes.add({ method: 'GET', path: '/stats', permission: 'public', handler: ({ tenant }) => ({ indexes: search.indexes(tenant).map((i) => i.name) }) });",
        '} });',
        '',
      ].join('\n'),
    );
    writeFileSync(
      path.join(deployment, 'manifest.json'),
      JSON.stringify({
        name: 'hello-deployment',
        dataDir: './data',
        listeners: [{ name: 'main', port: 0, plugins: ['hello', 'search', 'stats'] }],
        plugins: { hello: { module: 'tessera-plugin-hello', options: { greeting: 'Welcome' } }, search: {}, stats: { module: './stats/index.js' } },
      }),
    );
    const child = spawn(process.execPath, [path.join(deployment, 'node_modules', '.bin', 'tessera'), 'serve', '--manifest', 'manifest.json'], {
      cwd: deployment,
      env: { ...cleanEnv(), TESSERA_LOG_LEVEL: 'info' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stderr = '';
    child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
    try {
      const url = await new Promise<string>((resolve, reject) => {
        let buffered = '';
        child.stdout.on('data', (c: Buffer) => {
          buffered += c.toString();
          for (const line of buffered.split('\n')) {
            if (!line.includes('"listening"')) continue;
            resolve((JSON.parse(line) as { url: string }).url);
          }
        });
        child.once('exit', (code) => reject(new Error(`tessera exited ${code}: ${stderr}`)));
        setTimeout(() => reject(new Error(`no listening line within 60 s: ${stderr}`)), 60_000).unref();
      });
      const res = await fetch(`${url}/hello`);
      expect(res.status).toBe(200);
      expect(await json(res)).toEqual({ ok: true, greeting: 'Welcome from hello', visits: 1 });
      const openapi = await json(await fetch(`${url}/openapi.json`));
      expect(Object.keys(openapi.paths)).toEqual(expect.arrayContaining(['/hello', '/stats']));
      const created = await fetch(`${url}/v1/indexes`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ name: 'books' }),
      });
      expect(created.status).toBe(200);
      expect(await json(await fetch(`${url}/stats`))).toEqual({ ok: true, indexes: ['books'] });
    } finally {
      child.kill('SIGTERM');
      await new Promise((resolve) => child.once('exit', resolve));
    }
  }, 120_000);
});
