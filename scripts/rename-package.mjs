#!/usr/bin/env node
/**
 * Renames the npm package from `tessera` to `tessera-runtime` across the tracked files: the package
 * name, every `tessera/...` and `'tessera'` import, the TypeScript paths and vitest aliases, docs,
 * examples, fixtures and error messages. The command stays `tessera`; names that are not the
 * package (the CLI, manifest names, the bench adapter, a MariaDB user) are left alone.
 *
 * Purely mechanical and idempotent: run it from the repository root on any tree (again after a
 * merge) and commit the result on its own.
 *
 *   node scripts/rename-package.mjs          # rewrite files, list the ones changed
 *   node scripts/rename-package.mjs --check  # exit 1 if anything would change
 */
import { execFileSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';

const FROM = 'tessera';
const TO = 'tessera-runtime';
const self = 'scripts/rename-package.mjs';
const check = process.argv.includes('--check');

/** Rules for every text file. Each matches the old name only where it is the package's. */
const everywhere = [
  // Subpath imports and their mentions in prose and messages: tessera/plugin, tessera/plugins/search,
  // ... (never a path such as /srv/tessera/data, which a "/" precedes).
  [/(?<![\w.@/\\-])tessera\/(?=[a-z])/g, `${TO}/`],
  // The same in regular expressions: /^tessera\/plugin$/, /^tessera$/.
  [/\^tessera\\\//g, `^${TO}\\/`],
  [/\/\^tessera\$\//g, `/^${TO}$/`],
  // The main entry as a module specifier: from 'tessera', import('tessera').
  [/(\bfrom\s+|\bimport\s*\(\s*)(['"])tessera\2/g, `$1$2${TO}$2`],
  // A dependency on the package (package.json, docs) and the tsconfig path of the main entry.
  [/"tessera":(\s*)"(?=[\^~]|file:|\d)/g, `"${TO}":$1"`],
  [/"tessera":(\s*)\[/g, `"${TO}":$1[`],
  // Where npm installs it.
  [/node_modules\/tessera(?![\w-])/g, `node_modules/${TO}`],
];

/** Rules for one file each: mentions of the package name that no general pattern can tell apart. */
const perFile = {
  'package.json': [[/^(\s*)"name": "tessera",/m, `$1"name": "${TO}",`]],
  '.oxlintrc.json': [[/"tessera", "tessera-runtime\/testing"|"tessera", "tessera\/testing"/g, `"${TO}", "${TO}/testing"`]],
  'runtime/index.ts': [[/exported as `tessera`:/g, `exported as \`${TO}\`:`]],
  'runtime/version.ts': [[/name: 'tessera', version: '0\.0\.0'/g, `name: '${TO}', version: '0.0.0'`]],
  'bench/search/paths.ts': [[/\.name === 'tessera'/g, `.name === '${TO}'`]],
  'test/helpers/plugin-boundary.ts': [
    [/specifier === 'tessera' \|\| specifier\.startsWith\('tessera\/'\)/g, `specifier === '${TO}' || specifier.startsWith('${TO}/')`],
  ],
  'test/runtime/plugin-boundary.test.ts': [[/\['bad\/index\.ts', 4, 'tessera'\]/g, `['bad/index.ts', 4, '${TO}']`]],
  'docs/plugin-api.md': [
    [
      /The name `tessera` on the public npm registry belongs to an\nunrelated package, so do not install Tessera by that name from the registry\./g,
      `Tessera is published as \`${TO}\`; the registry's package named tessera is an unrelated\none.`,
    ],
    [/#testing-tesseratesting/g, `#testing-${TO}testing`],
    [/`tessera`(?! (?:serve|plugin)\b)/g, `\`${TO}\``],
  ],
  'README.md': [[/`tessera`(?= package| entry| main entry)/g, `\`${TO}\``]],
};

function tracked() {
  return execFileSync('git', ['ls-files', '-z'], { encoding: 'utf8' })
    .split('\0')
    .filter((f) => f !== '' && f !== self && f !== 'package-lock.json' && !/\.(wasm|png|jpe?g|gif|ico|pdf|tgz|gz|zip|mdb)$/i.test(f));
}

function rename(file, text) {
  let out = text;
  for (const [pattern, replacement] of perFile[file] ?? []) out = out.replace(pattern, replacement);
  for (const [pattern, replacement] of everywhere) out = out.replace(pattern, replacement);
  return out;
}

/** package-lock.json: the root package's own name, in both places npm writes it. */
function renameLock(text) {
  const lock = JSON.parse(text);
  if (lock.name === FROM) lock.name = TO;
  if (lock.packages?.['']?.name === FROM) lock.packages[''].name = TO;
  return `${JSON.stringify(lock, null, 2)}\n`;
}

const changed = [];
for (const file of [...tracked(), 'package-lock.json']) {
  let text;
  try {
    text = readFileSync(file, 'utf8');
  } catch {
    continue;
  }
  if (text.includes('\0')) continue;
  const out = file === 'package-lock.json' ? renameLock(text) : rename(file, text);
  if (out === text) continue;
  changed.push(file);
  if (!check) writeFileSync(file, out);
}
process.stdout.write(changed.length ? `${check ? 'would change' : 'changed'} ${changed.length} files:\n${changed.join('\n')}\n` : 'nothing to rename\n');
// A longer name can push a line past the print width: format what changed, as `npm run lint` checks.
const formatted = changed.filter((f) => /\.(ts|js|mjs|json)$/.test(f));
if (!check && formatted.length) execFileSync('npx', ['prettier', '--write', '--log-level', 'warn', ...formatted], { stdio: 'inherit' });
if (check && changed.length) process.exit(1);
