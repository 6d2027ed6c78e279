import { spawn } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const cli = fileURLToPath(new URL('../../../bin/tessera.js', import.meta.url));

export interface ServeProcess {
  url: string;
  /** SIGTERM, then waits for the process to exit. */
  stop(): Promise<void>;
}

/** A real `tessera serve` of `plugins` on one listener (port 0), its data directory `<dir>/data`. */
export async function serveSearch(dir: string, plugins: string[]): Promise<ServeProcess> {
  const manifest = path.join(dir, 'manifest.json');
  writeFileSync(
    manifest,
    JSON.stringify({
      name: 'bench',
      dataDir: './data',
      listeners: [{ name: 'search', port: 0, plugins }],
      plugins: Object.fromEntries(plugins.map((p) => [p, {}])),
      kernels: { threads: 1 },
    }),
  );
  const child = spawn(process.execPath, [cli, 'serve', '--manifest', manifest], {
    stdio: ['ignore', 'pipe', 'inherit'],
    env: { ...process.env, TESSERA_LOG_LEVEL: 'info' },
  });
  const url = await new Promise<string>((resolve, reject) => {
    let buffered = '';
    child.stdout!.on('data', (chunk: Buffer) => {
      buffered += chunk.toString();
      const match = /"url":"(http:[^"]+)"/.exec(buffered);
      if (match) {
        // Request logs keep coming: stop reading them into memory.
        child.stdout!.removeAllListeners('data');
        child.stdout!.resume();
        resolve(match[1]!);
      }
    });
    child.on('exit', (code) => reject(new Error(`tessera serve exited with ${code}`)));
  });
  return {
    url,
    async stop() {
      const exited = new Promise((resolve) => child.on('exit', resolve));
      child.kill('SIGTERM');
      await exited;
    },
  };
}
