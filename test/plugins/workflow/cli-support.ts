/** Workflow files and a project directory for tests that spawn the real CLI (`node bin/tessera.js`). */
import { spawnSync } from 'node:child_process';
import { mkdirSync, symlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { repoRoot, tempDir } from '../../helpers/app.js';
import { cliPath, type CliProcess } from '../../helpers/cli.js';
import { seedExample } from './fixtures.js';

/** A directory holding node_modules/tessera-runtime (a link to this checkout), as `npm install tessera` would make it. */
export function project(): string {
  const dir = tempDir('tessera-wf-cli-');
  mkdirSync(path.join(dir, 'node_modules/.bin'), { recursive: true });
  symlinkSync(repoRoot, path.join(dir, 'node_modules/tessera-runtime'), 'dir');
  symlinkSync('../tessera/bin/tessera.js', path.join(dir, 'node_modules/.bin/tessera'));
  return dir;
}

export function write(dir: string, file: string, content: unknown): string {
  const full = path.join(dir, file);
  mkdirSync(path.dirname(full), { recursive: true });
  writeFileSync(full, typeof content === 'string' ? content : `${JSON.stringify(content, null, 2)}\n`);
  return full;
}

/** A DSL module, as a user writes it: it imports the DSL by its package name. */
export const dslModule = `import { workflow } from 'tessera-runtime/workflow';

export default workflow('quote')
  .route('POST', '/quote')
  .searchFields(['customer'])
  .map({ customer: '{{input.customer}}', tenant: '{{attrs.tenant}}', channel: '{{attrs.channel}}' }, { id: 'who' })
  .when('{{input.amount}} > 100', (w) => w.map({ review: true }, { id: 'flag' }), { id: 'big' })
  .fanOut([(b) => b.mock({ price: 10 }, 5, { id: 'a' }), (b) => b.mock({ price: 12 }, 1, { id: 'b' })], { id: 'quotes' })
  .join('merge')
  .attrs(['channel'])
  .app({ inject: (req) => ({ tenant: req.headers.get('x-tenant-id') ?? 'acme', channel: req.headers.get('x-channel') ?? 'web' }) });
`;

/** Runs the CLI to completion. */
export function cli(args: string[], cwd: string): { status: number | null; stdout: string; stderr: string } {
  const r = spawnSync(process.execPath, [cliPath, ...args], { cwd, encoding: 'utf8', env: { ...process.env, TESSERA_LOG_LEVEL: 'warn' } });
  return { status: r.status, stdout: r.stdout, stderr: r.stderr };
}

export const seed = seedExample;

export async function listening(p: CliProcess): Promise<string> {
  return (await p.waitForLog((l) => l.msg === 'listening')).url as string;
}

/** The bootstrap admin key a first start prints (seed 001 rule 5). */
export async function adminKey(p: CliProcess): Promise<string> {
  return (await p.waitForLog((l) => typeof l.apiKey === 'string')).apiKey as string;
}

export async function post(url: string, body: unknown, headers: Record<string, string> = {}): Promise<{ status: number; body: any; execution: string | null }> {
  const res = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: JSON.stringify(body) });
  return { status: res.status, body: await res.json(), execution: res.headers.get('x-execution-id') };
}
