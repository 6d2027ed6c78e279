import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import { repoRoot } from './app.js';

export const cliPath = path.join(repoRoot, 'bin/tessera.js');

export interface CliProcess {
  child: ChildProcess;
  stdout(): string;
  stderr(): string;
  /** Resolves with the first parsed JSON log line that satisfies `predicate`. */
  waitForLog(predicate: (line: Record<string, any>) => boolean, timeoutMs?: number): Promise<Record<string, any>>;
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

export function runCli(args: string[], options: { env?: Record<string, string>; cwd?: string } = {}): CliProcess {
  const child = spawn(process.execPath, [cliPath, ...args], {
    cwd: options.cwd ?? repoRoot,
    env: { ...process.env, TESSERA_LOG_LEVEL: 'info', ...options.env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  let err = '';
  const waiters: Array<{ predicate: (line: Record<string, any>) => boolean; resolve: (line: Record<string, any>) => void }> = [];
  const seen: Array<Record<string, any>> = [];
  let partial = '';
  child.stdout!.on('data', (chunk: Buffer) => {
    out += chunk.toString();
    partial += chunk.toString();
    const lines = partial.split('\n');
    partial = lines.pop()!;
    for (const line of lines) {
      if (!line.trim()) continue;
      let parsed: Record<string, any>;
      try {
        parsed = JSON.parse(line);
      } catch {
        continue;
      }
      seen.push(parsed);
      for (const waiter of [...waiters]) {
        if (waiter.predicate(parsed)) {
          waiters.splice(waiters.indexOf(waiter), 1);
          waiter.resolve(parsed);
        }
      }
    }
  });
  child.stderr!.on('data', (chunk: Buffer) => {
    err += chunk.toString();
  });
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => {
    child.on('exit', (code, signal) => resolve({ code, signal }));
  });
  return {
    child,
    stdout: () => out,
    stderr: () => err,
    exited,
    waitForLog(predicate, timeoutMs = 15_000) {
      const found = seen.find(predicate);
      if (found) return Promise.resolve(found);
      return new Promise((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`Timed out waiting for a log line. stdout:\n${out}\nstderr:\n${err}`)), timeoutMs);
        waiters.push({
          predicate,
          resolve: (line) => {
            clearTimeout(timer);
            resolve(line);
          },
        });
        void exited.then(() => {
          clearTimeout(timer);
          reject(new Error(`Process exited before the log line. stdout:\n${out}\nstderr:\n${err}`));
        });
      });
    },
  };
}

/** Wait for the `listening` lines of a serve process and return each listener's URL. */
export async function listeningUrls(cli: CliProcess, count: number): Promise<Record<string, string>> {
  const urls: Record<string, string> = {};
  for (let i = 0; i < count; i++) {
    const line = await cli.waitForLog((l) => l.msg === 'listening' && !(l.listener in urls));
    urls[line.listener] = line.url;
  }
  return urls;
}
