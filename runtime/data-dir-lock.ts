import { closeSync, ftruncateSync, mkdirSync, openSync, readFileSync, writeSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { TesseraError } from './errors.js';

const require = createRequire(import.meta.url);
const { flockSync } = require('fs-ext') as { flockSync(fd: number, flags: 'exnb' | 'un'): void };

export const LOCK_FILE = 'tessera.lock';

/**
 * One writing process per data directory. LMDB itself lets several processes open one
 * environment, and each keeps its own view of the search plugin's in-memory segments: two
 * `tessera serve` on one directory would each acknowledge writes the other never sees. The lock is
 * an advisory `flock` on `<dataDir>/tessera.lock`, which the kernel releases when the process dies
 * (no stale lock after kill -9), and the file names the holder's pid for the error message.
 * Readers in other processes open the store with `readOnly` and take no lock.
 */
export class DataDirLock {
  private fd: number | undefined;

  private constructor(
    readonly dir: string,
    fd: number,
  ) {
    this.fd = fd;
  }

  static acquire(dir: string): DataDirLock {
    mkdirSync(dir, { recursive: true });
    const file = path.join(dir, LOCK_FILE);
    const fd = openSync(file, 'a+');
    try {
      flockSync(fd, 'exnb');
    } catch (cause) {
      closeSync(fd);
      const code = (cause as NodeJS.ErrnoException).code;
      if (code !== 'EAGAIN' && code !== 'EWOULDBLOCK') throw cause;
      const holder = readHolder(file);
      throw new TesseraError(
        'store_locked',
        500,
        `The data directory ${dir} is in use by another Tessera process${holder ? ` (pid ${holder})` : ''}. Stop it, or give this one another dataDir.`,
        { details: { dir, ...(holder ? { pid: holder } : {}) } },
      );
    }
    ftruncateSync(fd, 0);
    writeSync(fd, `${process.pid}\n`, 0);
    return new DataDirLock(dir, fd);
  }

  release(): void {
    if (this.fd === undefined) return;
    const fd = this.fd;
    this.fd = undefined;
    try {
      ftruncateSync(fd, 0);
      flockSync(fd, 'un');
    } finally {
      closeSync(fd);
    }
  }
}

function readHolder(file: string): number | undefined {
  try {
    const pid = Number.parseInt(readFileSync(file, 'utf8').trim(), 10);
    return Number.isSafeInteger(pid) && pid > 0 ? pid : undefined;
  } catch {
    return undefined;
  }
}
