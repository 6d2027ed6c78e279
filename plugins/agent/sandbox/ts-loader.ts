import { cpSync, existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

/** Where the TypeScript loader of sandboxed test runs is: its folder (`register.mjs`, `hooks.mjs`) and the amaro package it imports. */
export interface TsLoader {
  /** The folder holding `register.mjs` and `hooks.mjs`. */
  dir: string;
  /** `<dir>/register.mjs`, given to `node --import`. */
  register: string;
  /** amaro's package folder (found by `hooks.mjs` through Node's node_modules lookup from `dir`). */
  amaro: string;
}

/** The loader's folder: beside this module in a checkout, else in the source tree above the build (`dist/`). */
function loaderDir(): string {
  const here = fileURLToPath(new URL('./ts-loader', import.meta.url));
  if (existsSync(path.join(here, 'register.mjs'))) return here;
  let dir = path.dirname(fileURLToPath(import.meta.url));
  while (!existsSync(path.join(dir, 'package.json')) && path.dirname(dir) !== dir) dir = path.dirname(dir);
  return path.join(dir, 'plugins/agent/sandbox/ts-loader');
}

let located: TsLoader | undefined;

/** Tessera's TypeScript loader as installed. */
export function tsLoader(): TsLoader {
  if (!located) {
    const dir = loaderDir();
    // The package's entry is dist/index.js; its folder is two levels up.
    const amaro = path.dirname(path.dirname(createRequire(path.join(dir, 'hooks.mjs')).resolve('amaro')));
    located = { dir, register: path.join(dir, 'register.mjs'), amaro };
  }
  return located;
}

/**
 * A copy of the loader and amaro under `into` (`loader/` and `node_modules/amaro/`, so the hooks
 * still find amaro), for runs that drop to a uid that cannot reach the installed copy.
 */
export function copyTsLoader(into: string, from: TsLoader = tsLoader()): TsLoader {
  const dir = path.join(into, 'loader');
  const amaro = path.join(into, 'node_modules', 'amaro');
  cpSync(from.dir, dir, { recursive: true });
  cpSync(from.amaro, amaro, { recursive: true });
  return { dir, register: path.join(dir, 'register.mjs'), amaro };
}
