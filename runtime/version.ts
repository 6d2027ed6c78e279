import { readFileSync } from 'node:fs';

/**
 * Tessera's own package.json, two levels up in the source tree and in dist/ alike: the one whose
 * `bin` is the `tessera` command (the package name is read, not assumed).
 */
function readPackage(): { name: string; version: string } {
  for (const rel of ['../package.json', '../../package.json']) {
    try {
      const pkg = JSON.parse(readFileSync(new URL(rel, import.meta.url), 'utf8')) as { name?: string; version?: string; bin?: Record<string, string> };
      if (pkg.bin?.tessera !== undefined && pkg.name && pkg.version) return { name: pkg.name, version: pkg.version };
    } catch {
      // try the next location
    }
  }
  return { name: 'tessera-runtime', version: '0.0.0' };
}

const runtimePackage = readPackage();

/** The package version. */
export const runtimeVersion = runtimePackage.version;
/** The npm name plugins import the runtime by (`<name>/plugin`, `<name>/testing`). */
export const runtimePackageName = runtimePackage.name;
