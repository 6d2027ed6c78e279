// Module hooks that let Node 20 run TypeScript (docs/agent-api.md, "TypeScript repositories").
// amaro's own loader (`amaro/strip`) relies on the `module-typescript` format Node 22.6+ gives .ts
// files; Node 20 refuses .ts before a loader sees it, so these hooks load .ts/.mts/.cts themselves
// and hand amaro's `transformSync` the source.
import { statSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { transformSync } from 'amaro';

const typescript = /\.(c|m)?ts$/;
const relative = /^(\.{1,2}\/|\/|file:)/;
const isFile = (url) => {
  try {
    return statSync(fileURLToPath(url)).isFile();
  } catch {
    return false;
  }
};

/**
 * TypeScript's habit of importing `./x.js` for `./x.ts` (NodeNext), and extensionless `./x`:
 * when Node finds no such file, the `.ts` sibling (or `x/index.ts`) is taken.
 */
export async function resolve(specifier, context, next) {
  try {
    return await next(specifier, context);
  } catch (err) {
    if (err?.code !== 'ERR_MODULE_NOT_FOUND' || !relative.test(specifier) || !context.parentURL) throw err;
    const target = new URL(specifier, context.parentURL);
    const candidates = /\.(c|m)?js$/.test(target.pathname)
      ? [target.href.replace(/js$/, 'ts')]
      : [`${target.href}.ts`, `${target.href}.mts`, `${target.href}/index.ts`];
    const found = candidates.find(isFile);
    if (!found) throw err;
    return { url: found, shortCircuit: true };
  }
}

/** A .ts/.mts file is an ES module and a .cts file CommonJS, with its types removed (enums and parameter properties transformed). */
export async function load(url, context, next) {
  if (!url.startsWith('file:') || !typescript.test(new URL(url).pathname)) return next(url, context);
  const file = fileURLToPath(url);
  const { code } = transformSync(await readFile(file, 'utf8'), { mode: 'transform', sourceMap: false, filename: file });
  return { format: file.endsWith('.cts') ? 'commonjs' : 'module', source: `${code}\n//# sourceURL=${url}`, shortCircuit: true };
}
