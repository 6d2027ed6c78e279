import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import semver from 'semver';
import type { FieldIssue } from './errors.js';
import type { ResolvedManifest } from './manifest.js';
import type { PluginDefinition } from './plugin-types.js';
import { isErrorTable } from './define-errors.js';
import { permissionNamePattern } from './permissions.js';
import { PluginError } from './plugin-error.js';
import { notePluginSource } from './plugin-frame.js';
import { issuesOf } from './validation.js';

export { PluginError } from './plugin-error.js';

export interface LoadedPlugin {
  /** The manifest key, equal to the definition's name. */
  name: string;
  definition: PluginDefinition<any>;
  /** Where the module was loaded from (file path). */
  source: string;
  /** Options after validation and defaults. */
  options: unknown;
}

const here = path.dirname(fileURLToPath(import.meta.url));
/** plugins/ beside runtime/, in the source tree and in dist/ alike. */
const builtinRoot = path.resolve(here, '../plugins');

export function builtinPluginNames(): string[] {
  if (!existsSync(builtinRoot)) return [];
  return readdirSync(builtinRoot, { withFileTypes: true })
    .filter((d) => d.isDirectory() && findIndex(path.join(builtinRoot, d.name)) !== undefined)
    .map((d) => d.name)
    .sort();
}

/** The entry file of a built-in plugin (index.js in dist/, index.ts in the source tree). */
export function builtinPluginFile(name: string): string | undefined {
  return findIndex(path.join(builtinRoot, name));
}

/** A plugin definition handed over in code (tessera-runtime/testing), with where it came from for messages. */
export interface ProvidedPlugin {
  definition: unknown;
  source: string;
}

/**
 * Resolve, import, check and order every plugin of the manifest. Setup is the caller's. A plugin in
 * `provided` is taken as given instead of imported; it is checked the same way.
 */
export async function loadPlugins(manifest: ResolvedManifest, provided: ReadonlyMap<string, ProvidedPlugin> = new Map()): Promise<LoadedPlugin[]> {
  const loaded: LoadedPlugin[] = [];
  const byName = new Map<string, LoadedPlugin>();
  for (const [key, entry] of Object.entries(manifest.plugins)) {
    const given = provided.get(key);
    const file = given ? given.source : resolvePluginFile(key, entry.module, manifest.dir);
    const definition = given ? checkDefinition(key, file, given.definition) : await importDefinition(key, file);
    const builtin = builtinPluginFile(key);
    const isTheBuiltin = given ? (await builtinDefinition(key)) === given.definition : path.resolve(file) === builtin;
    if (builtin !== undefined && !isTheBuiltin && entry.override !== true) {
      throw new PluginError(
        'plugin_name_conflict',
        key,
        `${file} declares the name "${key}", which is a built-in plugin's. Rename the plugin, or set "override": true on its manifest entry to replace the built-in.`,
        { details: { builtin: key, source: file } },
      );
    }
    if (definition.name !== key) {
      throw new PluginError('plugin_name_mismatch', key, `The manifest names this plugin "${key}" but ${file} declares name "${definition.name}".`);
    }
    const options = validateOptions(key, definition, entry.options);
    const plugin: LoadedPlugin = { name: key, definition, source: file, options };
    loaded.push(plugin);
    byName.set(key, plugin);
  }
  return sortByDependencies(loaded);
}

function resolvePluginFile(key: string, module: string | undefined, manifestDir: string): string {
  if (module === undefined) {
    const file = findIndex(path.join(builtinRoot, key));
    if (!file) {
      const known = builtinPluginNames();
      throw new PluginError(
        'plugin_module_not_found',
        key,
        `No built-in plugin named "${key}" (built-ins: ${known.join(', ') || 'none'}). To load a plugin from elsewhere, set "module" to a path or package name.`,
      );
    }
    return file;
  }
  if (module.startsWith('.') || path.isAbsolute(module)) {
    const target = path.resolve(manifestDir, module);
    const file = existsSync(target) && statSync(target).isDirectory() ? (findIndex(target) ?? packageEntry(target)) : existsSync(target) ? target : undefined;
    if (!file) throw new PluginError('plugin_module_not_found', key, `Module "${module}" not found (looked for ${target}, relative to the manifest).`);
    return file;
  }
  const file = resolvePackage(module, manifestDir);
  if (!file)
    throw new PluginError('plugin_module_not_found', key, `Package "${module}" is not installed where the manifest is (${manifestDir}); npm install it there.`);
  return file;
}

function findIndex(dir: string): string | undefined {
  // The .ts file is only there in the source tree (tests run from source); dist/ has the .js.
  for (const name of ['index.js', 'index.mjs', 'index.ts']) {
    const file = path.join(dir, name);
    if (existsSync(file)) return file;
  }
  return undefined;
}

function packageEntry(dir: string): string | undefined {
  const pkgFile = path.join(dir, 'package.json');
  if (!existsSync(pkgFile)) return undefined;
  const pkg = JSON.parse(readFileSync(pkgFile, 'utf8')) as { main?: string; exports?: unknown };
  const entry = exportsEntry(pkg.exports) ?? pkg.main;
  if (!entry) return undefined;
  const file = path.resolve(dir, entry);
  return existsSync(file) ? file : undefined;
}

function exportsEntry(exports: unknown): string | undefined {
  if (typeof exports === 'string') return exports;
  if (!exports || typeof exports !== 'object') return undefined;
  const map = exports as Record<string, unknown>;
  const root = '.' in map ? map['.'] : map;
  if (typeof root === 'string') return root;
  if (root && typeof root === 'object') {
    const conditions = root as Record<string, unknown>;
    for (const condition of ['import', 'node', 'default']) {
      const value = conditions[condition];
      if (typeof value === 'string') return value;
      if (value && typeof value === 'object') {
        const nested = exportsEntry({ '.': value });
        if (nested) return nested;
      }
    }
  }
  return undefined;
}

function resolvePackage(name: string, fromDir: string): string | undefined {
  try {
    return createRequire(path.join(fromDir, 'manifest.js')).resolve(name);
  } catch {
    // ESM-only packages have no "require" condition: find the package folder and read its exports.
    for (let dir = fromDir; ; dir = path.dirname(dir)) {
      const candidate = path.join(dir, 'node_modules', name);
      if (existsSync(path.join(candidate, 'package.json'))) return packageEntry(candidate);
      if (path.dirname(dir) === dir) return undefined;
    }
  }
}

async function importDefinition(key: string, file: string): Promise<PluginDefinition<any>> {
  let mod: Record<string, unknown>;
  try {
    mod = (await import(pathToFileURL(file).href)) as Record<string, unknown>;
  } catch (cause) {
    const typescript = (cause as NodeJS.ErrnoException)?.code === 'ERR_UNKNOWN_FILE_EXTENSION' && /\.[mc]?ts$/.test(file);
    const error = new PluginError(
      'plugin_invalid',
      key,
      typescript
        ? `Importing ${file} failed: Node ${process.versions.node} does not load TypeScript. Compile the plugin to JavaScript (tsc) and point "module" at the .js file or at a package whose "exports" names it.`
        : `Importing ${file} failed: ${(cause as Error).message}`,
      { cause },
    );
    notePluginSource(error, file);
    throw error;
  }
  return checkDefinition(key, file, mod.default ?? mod.plugin);
}

/** A built-in's own definition (a test handing over the imported plugins/search is not overriding it). */
async function builtinDefinition(name: string): Promise<unknown> {
  const file = builtinPluginFile(name);
  if (file === undefined) return undefined;
  const mod = (await import(pathToFileURL(file).href)) as Record<string, unknown>;
  return mod.default ?? mod.plugin;
}

function checkDefinition(key: string, file: string, exported: unknown): PluginDefinition<any> {
  const definition = exported as Partial<PluginDefinition> | undefined;
  const problems: string[] = [];
  if (!definition || typeof definition !== 'object') problems.push('no default export');
  else {
    if (typeof definition.name !== 'string' || definition.name === '') problems.push('"name" must be a non-empty string');
    if (typeof definition.version !== 'string' || !semver.valid(definition.version)) problems.push('"version" must be a semver version such as "1.0.0"');
    if (typeof definition.setup !== 'function') problems.push('"setup" must be a function');
    if (definition.options !== undefined && typeof (definition.options as { safeParse?: unknown }).safeParse !== 'function') {
      problems.push('"options" must be a zod schema (z from tessera-runtime/plugin)');
    }
    if (definition.permissions !== undefined) {
      if (!Array.isArray(definition.permissions)) problems.push('"permissions" must be an array of {name, description}');
      else {
        for (const [i, p] of definition.permissions.entries()) {
          if (!p || typeof p !== 'object' || typeof p.name !== 'string' || !permissionNamePattern.test(p.name)) {
            problems.push(`"permissions[${i}].name" must be "domain:action" (lowercase letters, digits, "-"), such as "notes:read"`);
          } else if (typeof p.description !== 'string' || p.description.trim() === '') {
            problems.push(`"permissions[${i}].description" must say what "${p.name}" allows`);
          }
        }
      }
    }
    if (definition.errors !== undefined && !isErrorTable(definition.errors))
      problems.push('"errors" must be made with defineErrors() from tessera-runtime/plugin');
    if (definition.dependsOn !== undefined) {
      if (!Array.isArray(definition.dependsOn)) problems.push('"dependsOn" must be an array');
      else {
        for (const [i, dep] of definition.dependsOn.entries()) {
          const ok =
            (typeof dep === 'string' && dep !== '') ||
            (typeof dep === 'object' &&
              dep !== null &&
              typeof dep.name === 'string' &&
              dep.name !== '' &&
              typeof dep.version === 'string' &&
              semver.validRange(dep.version) !== null);
          if (!ok) problems.push(`"dependsOn[${i}]" must be a plugin name or {name, version} with a semver range`);
        }
      }
    }
  }
  if (problems.length > 0) {
    throw new PluginError('plugin_invalid', key, `${file} does not default-export a plugin made with definePlugin(): ${problems.join('; ')}.`);
  }
  return definition as PluginDefinition<any>;
}

function validateOptions(key: string, definition: PluginDefinition<any>, options: Record<string, unknown> | undefined): unknown {
  const prefix = `plugins.${key}.options`;
  if (!definition.options) {
    if (options && Object.keys(options).length > 0) {
      const issues: FieldIssue[] = Object.keys(options).map((k) => ({ path: `${prefix}.${k}`, message: 'unknown key (this plugin takes no options)' }));
      throw new PluginError('plugin_options_invalid', key, `Invalid options: ${issues.map((i) => `${i.path}: ${i.message}`).join('; ')}`, {
        details: { issues },
      });
    }
    return {};
  }
  const result = definition.options.safeParse(options ?? {});
  if (result.success) return result.data;
  const issues = issuesOf(result.error, prefix);
  throw new PluginError('plugin_options_invalid', key, `Invalid options: ${issues.map((i) => `${i.path}: ${i.message}`).join('; ')}`, { details: { issues } });
}

function dependencyOf(dep: string | { name: string; version: string }): { name: string; range: string } {
  return typeof dep === 'string' ? { name: dep, range: '*' } : { name: dep.name, range: dep.version };
}

/** Dependencies first; among independent plugins, manifest order. */
export function sortByDependencies(plugins: LoadedPlugin[]): LoadedPlugin[] {
  const byName = new Map(plugins.map((p) => [p.name, p]));
  for (const plugin of plugins) {
    for (const raw of plugin.definition.dependsOn ?? []) {
      const dep = dependencyOf(raw);
      const target = byName.get(dep.name);
      if (!target) {
        throw new PluginError('plugin_dependency_missing', plugin.name, `Depends on "${dep.name}", which the manifest does not load. Add it under "plugins".`, {
          details: { dependency: dep.name },
        });
      }
      if (!semver.satisfies(target.definition.version, dep.range, { includePrerelease: true })) {
        throw new PluginError(
          'plugin_dependency_version',
          plugin.name,
          `Depends on "${dep.name}@${dep.range}", but version ${target.definition.version} is loaded.`,
          { details: { dependency: dep.name, range: dep.range, loaded: target.definition.version } },
        );
      }
    }
  }

  const order: LoadedPlugin[] = [];
  const state = new Map<string, 'visiting' | 'done'>();
  const visit = (plugin: LoadedPlugin, trail: string[]): void => {
    const seen = state.get(plugin.name);
    if (seen === 'done') return;
    if (seen === 'visiting') {
      const cycle = [...trail.slice(trail.indexOf(plugin.name)), plugin.name];
      throw new PluginError('plugin_dependency_cycle', plugin.name, `Dependency cycle: ${cycle.join(' -> ')}.`, { details: { cycle } });
    }
    state.set(plugin.name, 'visiting');
    for (const raw of plugin.definition.dependsOn ?? []) visit(byName.get(dependencyOf(raw).name)!, [...trail, plugin.name]);
    state.set(plugin.name, 'done');
    order.push(plugin);
  };
  for (const plugin of plugins) visit(plugin, []);
  return order;
}

export function directDependencies(plugin: LoadedPlugin): string[] {
  return (plugin.definition.dependsOn ?? []).map((d) => dependencyOf(d).name);
}
