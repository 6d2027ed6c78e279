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

const sources = Math.max(
  newest(path.join(root, 'runtime')),
  newest(path.join(root, 'plugins')),
  newest(path.join(root, 'kernels/src')),
  newest(path.join(root, 'kernels/assembly')),
  mtime(path.join(root, 'package.json')),
);
const built = Math.min(mtime(path.join(root, 'dist/runtime/cli.js')), newest(path.join(root, 'kernels/build')) || 0);
if (built === 0 || built < sources) {
  process.stderr.write('tessera: building (sources changed since the last build)\n');
  execSync('npm run build', { cwd: root, stdio: 'inherit' });
}
