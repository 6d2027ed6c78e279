// `npm start` calls this: build only when dist/ or the kernels are missing or older than the sources.
import { execSync } from 'node:child_process';
import { existsSync, readdirSync, statSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

function newest(dir) {
  let latest = 0;
  if (!existsSync(dir)) return latest;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) latest = Math.max(latest, newest(full));
    else latest = Math.max(latest, statSync(full).mtimeMs);
  }
  return latest;
}

function mtime(file) {
  return existsSync(file) ? statSync(file).mtimeMs : 0;
}

// Each output against its own inputs: the kernel build leaves outputs newer than their inputs alone,
// so its time says nothing about the TypeScript sources (comparing them rebuilt on every start).
const tsSources = Math.max(
  newest(path.join(root, 'runtime')),
  newest(path.join(root, 'plugins')),
  newest(path.join(root, 'kernels/src')),
  mtime(path.join(root, 'package.json')),
);
const kernelSources = Math.max(newest(path.join(root, 'kernels/assembly')), newest(path.join(root, 'kernels/src')), mtime(path.join(root, 'asconfig.json')));
const tsBuilt = mtime(path.join(root, 'dist/runtime/cli.js'));
const kernelsBuilt = newest(path.join(root, 'kernels/build'));
const stale = tsBuilt === 0 || tsBuilt < tsSources || kernelsBuilt === 0 || kernelsBuilt < kernelSources;
if (stale) {
  process.stderr.write('tessera: building (sources changed since the last build)\n');
  execSync('npm run build', { cwd: root, stdio: 'inherit' });
}
