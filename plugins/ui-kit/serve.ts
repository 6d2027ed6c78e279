import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { PluginContext } from 'tessera-runtime/plugin';
import { uiHeaders } from './headers.js';

export { uiHeaders } from './headers.js';

/**
 * The foundation shared by Tessera's web UIs (the control plane on 3849, the workflow hub on 8787,
 * the agent console on 8000): one shell (session, sign-in, navigation, lazily loaded screens), one
 * component library, one API client with the rbac cookie session, one router, one rbac panel and
 * one stylesheet, served as ES modules with no build step.
 *
 * Not a plugin (no index file, so the loader does not list it): a module UI plugins import.
 * A UI plugin calls `serveUi(ctx, 'plugins/<name>/ui', import.meta.url)` last in its setup: it
 * mounts `/vendor` (Preact, its hooks and htm), `/lib` (this kit) and the plugin's own files at
 * `/` with the single-page fallback, all under the same strict Content-Security-Policy.
 */
export function serveUi(ctx: Pick<PluginContext<unknown>, 'routes'>, sourceDir: string, moduleUrl: string): void {
  ctx.routes.static('/vendor', vendorDir(), { headers: uiHeaders, immutable: false });
  ctx.routes.static('/lib', sourcePath('plugins/ui-kit/lib', import.meta.url, './lib'), { headers: uiHeaders });
  ctx.routes.static('/', sourcePath(sourceDir, moduleUrl, './ui'), { spaFallback: true, headers: uiHeaders });
}

/** Preact, its hooks and htm in one ES module (nothing from a CDN). */
function vendorDir(): string {
  return path.join(path.dirname(createRequire(import.meta.url).resolve('htm')), '..', 'preact');
}

/**
 * A folder of browser files: beside the module in a checkout (`relative`), or in the source tree
 * when running from dist/ (tsc does not copy them), which is `sourceDir` from the package root.
 */
function sourcePath(sourceDir: string, moduleUrl: string, relative: string): string {
  const here = fileURLToPath(new URL(relative, moduleUrl));
  if (existsSync(here)) return here;
  let dir = path.dirname(fileURLToPath(moduleUrl));
  while (!existsSync(path.join(dir, 'package.json')) && path.dirname(dir) !== dir) dir = path.dirname(dir);
  return path.join(dir, sourceDir);
}
