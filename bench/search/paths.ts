import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * The project root: the nearest directory above this module whose package.json is Tessera's. Works
 * from the sources (bench/search, under vitest) and from the build (dist/bench/search).
 */
export function projectRoot(): string {
  let dir = dirname(fileURLToPath(import.meta.url));
  for (;;) {
    const pkg = join(dir, 'package.json');
    if (existsSync(pkg) && (JSON.parse(readFileSync(pkg, 'utf8')) as { name?: string }).name === 'tessera-runtime') return dir;
    const up = dirname(dir);
    if (up === dir) throw new Error(`bench/search: no Tessera package.json above ${fileURLToPath(import.meta.url)}`);
    dir = up;
  }
}

/** Version of an installed package, read from node_modules (for the bench's JSON lines). */
export function packageVersion(name: string): string {
  try {
    return (JSON.parse(readFileSync(join(projectRoot(), 'node_modules', name, 'package.json'), 'utf8')) as { version: string }).version;
  } catch {
    return 'unknown';
  }
}
