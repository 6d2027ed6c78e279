import { existsSync, mkdirSync, readdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { scaffoldFiles } from './scaffold/templates.js';
import { runtimePackageName, runtimeVersion } from './version.js';

export const pluginUsage = `Usage: tessera plugin new <dir> [--name <name>] [--ts]

Creates a plugin package in <dir> (which must not exist or be empty): package.json with a peer and
dev dependency on ${runtimePackageName}, the plugin (GET /hello, an option with a zod schema, its store
format recorded), a test using createTestApp from ${runtimePackageName}/testing, a README and .gitignore.

Options:
  --name NAME           The plugin's name (default: the folder's name); the package is tessera-plugin-NAME
  --ts                  Write TypeScript (index.ts, a tsconfig checked with skipLibCheck false, built to dist/)
  -h, --help            Show this help`;

const pluginNamePattern = /^[a-z][a-z0-9-]*$/;

/** `tessera plugin <subcommand>`; resolves to the exit code. */
export async function pluginCommand(argv: string[]): Promise<number> {
  let parsed;
  try {
    parsed = parseArgs({
      args: argv,
      allowPositionals: true,
      strict: true,
      options: { name: { type: 'string' }, ts: { type: 'boolean' }, help: { type: 'boolean', short: 'h' } },
    });
  } catch (err) {
    process.stderr.write(`tessera plugin: ${(err as Error).message}\n\n${pluginUsage}\n`);
    return 2;
  }
  const { values, positionals } = parsed;
  if (values.help) {
    process.stdout.write(`${pluginUsage}\n`);
    return 0;
  }
  const [sub, dir, ...extra] = positionals;
  if (sub !== 'new' || dir === undefined || extra.length > 0) {
    process.stderr.write(`tessera plugin: ${sub === 'new' ? 'expected one folder' : `unknown subcommand "${sub ?? ''}"`}\n\n${pluginUsage}\n`);
    return 2;
  }
  const target = path.resolve(dir);
  const name = values.name ?? path.basename(target).replace(/^tessera-plugin-/, '');
  if (!pluginNamePattern.test(name)) {
    process.stderr.write(
      `tessera plugin: "${name}" cannot be a plugin name: use lowercase letters, digits and "-", starting with a letter (--name sets it).\n`,
    );
    return 2;
  }
  if (existsSync(target) && readdirSync(target).length > 0) {
    process.stderr.write(`tessera plugin: ${target} exists and is not empty; choose a new folder.\n`);
    return 1;
  }
  const files = scaffoldFiles({
    name,
    packageName: `tessera-plugin-${name}`,
    typescript: values.ts === true,
    runtime: { name: runtimePackageName, version: runtimeVersion },
  });
  for (const [file, text] of Object.entries(files)) {
    const full = path.join(target, file);
    mkdirSync(path.dirname(full), { recursive: true });
    writeFileSync(full, text);
  }
  const where = path.relative(process.cwd(), target) || '.';
  process.stdout.write(`Created plugin "${name}" in ${where}: ${Object.keys(files).sort().join(', ')}\n\nNext:\n  cd ${where}\n  npm install\n  npm test\n`);
  return 0;
}
