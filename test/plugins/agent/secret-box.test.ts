import { spawn } from 'node:child_process';
import { chmodSync, readdirSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { SecretBox } from '../../../plugins/agent/secret-box.js';
import { repoRoot, tempDir } from '../../helpers/app.js';

/** A process that opens the key file (creating it if it is the first) and prints `seal(text)`. */
const sealer = `
import { SecretBox } from ${JSON.stringify(path.join(repoRoot, 'dist/plugins/agent/secret-box.js'))};
const [file, text, at] = process.argv.slice(2);
while (Date.now() < Number(at)) {}
process.stdout.write(new SecretBox(file).seal(text));
`;

function run(script: string, args: string[]): Promise<string> {
  const child = spawn(process.execPath, [script, ...args], { stdio: ['ignore', 'pipe', 'inherit'] });
  let out = '';
  child.stdout.on('data', (c: Buffer) => (out += c.toString()));
  return new Promise((resolve, reject) => child.on('exit', (code) => (code === 0 ? resolve(out) : reject(new Error(`sealer exited ${code}`)))));
}

describe('SecretBox key files', () => {
  it('lets processes that start at once agree on one key (the queue key of a service and its workers)', async () => {
    const dir = tempDir('tessera-secret-box-');
    const script = path.join(dir, 'sealer.mjs');
    writeFileSync(script, sealer);
    const file = path.join(dir, 'queue', 'queue-secrets.key');
    // All start spinning until the same instant, then race to create the file.
    const at = String(Date.now() + 700);
    const sealed = await Promise.all([0, 1, 2, 3, 4, 5].map((n) => run(script, [file, `secret-${n}`, at])));
    const box = new SecretBox(file);
    expect(sealed.map((s) => box.open(s))).toEqual(['secret-0', 'secret-1', 'secret-2', 'secret-3', 'secret-4', 'secret-5']);
    expect(statSync(file).mode & 0o777).toBe(0o600);
    // No temporary file is left behind.
    expect(readdirSync(path.dirname(file))).toEqual(['queue-secrets.key']);
  });

  it('tightens a key file others can read, and refuses one that holds no 32-byte key', () => {
    const dir = tempDir('tessera-secret-box-');
    const file = path.join(dir, 'agent.key');
    const first = new SecretBox(file);
    chmodSync(file, 0o644);
    expect(new SecretBox(file).open(first.seal('sk-1'))).toBe('sk-1');
    expect(statSync(file).mode & 0o777).toBe(0o600);
    writeFileSync(path.join(dir, 'short.key'), 'c2hvcnQ=\n');
    expect(() => new SecretBox(path.join(dir, 'short.key'))).toThrow('does not hold a base64 32-byte key');
  });
});
