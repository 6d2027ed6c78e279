/**
 * The plugin boundary (docs/plugin-api.md): a plugin imports the runtime only through
 * `tessera-runtime/plugin` and `tessera-runtime/kernels`, its own files, npm packages, other plugins' `index`
 * modules, and the files of shared module folders (a folder of plugins/ with no index, such as ui-kit). Anything else couples it to runtime internals a third-party plugin cannot reach.
 */
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';
import ts from 'typescript';

export interface BoundaryViolation {
  /** The importing file, relative to the plugins directory. */
  file: string;
  line: number;
  specifier: string;
  reason: string;
}

const allowedPackageEntries = new Set(['tessera-runtime/plugin', 'tessera-runtime/kernels']);
/** A built-in's public entry (`tessera-runtime/plugins/search`): its token and types, as a third-party plugin imports them. */
const builtinEntry = /^tessera-runtime\/plugins\/[a-z0-9-]+$/;

function sourceFiles(dir: string): string[] {
  const out: string[] = [];
  for (const entry of readdirSync(dir)) {
    const path = join(dir, entry);
    if (statSync(path).isDirectory()) out.push(...sourceFiles(path));
    else if (/\.(m|c)?tsx?$/.test(entry) && !entry.endsWith('.d.ts')) out.push(path);
  }
  return out;
}

/** Why `specifier`, imported by `file` of plugin `pluginDir`, crosses the boundary; undefined when it does not. */
function violation(pluginsDir: string, pluginDir: string, file: string, specifier: string): string | undefined {
  if (specifier === 'tessera-runtime' || specifier.startsWith('tessera-runtime/')) {
    return allowedPackageEntries.has(specifier) || builtinEntry.test(specifier)
      ? undefined
      : `'${specifier}' is not a plugin entry point (use 'tessera-runtime/plugin' or 'tessera-runtime/kernels')`;
  }
  if (!specifier.startsWith('.') && !specifier.startsWith('/')) return undefined; // an npm package or a node: builtin
  const target = resolve(dirname(file), specifier);
  if (target === pluginDir || target.startsWith(pluginDir + sep)) return undefined;
  const fromPlugins = relative(pluginsDir, target);
  if (fromPlugins.startsWith('..') || fromPlugins === '') return `reaches outside plugins/ into ${relative(dirname(pluginsDir), target) || '.'}`;
  const [other, ...rest] = fromPlugins.split(sep);
  // A folder with no index module is not a plugin but a shared module (plugins/ui-kit): its files are public.
  if (!['index.ts', 'index.js', 'index.mts', 'index.mjs'].some((f) => existsSync(join(pluginsDir, other!, f)))) return undefined;
  if (rest.length === 1 && /^index\.(js|ts|mjs|mts)$/.test(rest[0]!)) return undefined;
  return `imports plugin "${other}"'s internal module ${rest.join('/')} (only its index is public)`;
}

/** Every import, re-export and dynamic import under `pluginsDir` (one directory per plugin) that crosses the boundary. */
export function checkPluginBoundary(pluginsDir: string): BoundaryViolation[] {
  const root = resolve(pluginsDir);
  const out: BoundaryViolation[] = [];
  for (const name of readdirSync(root)) {
    const pluginDir = join(root, name);
    if (!statSync(pluginDir).isDirectory()) continue;
    for (const file of sourceFiles(pluginDir)) {
      const text = readFileSync(file, 'utf8');
      const info = ts.preProcessFile(text, true, true);
      for (const ref of info.importedFiles) {
        const reason = violation(root, pluginDir, file, ref.fileName);
        if (!reason) continue;
        const line = text.slice(0, ref.pos).split('\n').length;
        out.push({ file: relative(root, file).split(sep).join('/'), line, specifier: ref.fileName, reason });
      }
    }
  }
  return out;
}
