import os from 'node:os';
import path from 'node:path';
import type { PluginContext } from 'tessera-runtime/plugin';
import { GRAPH_SERVICE } from '../graph/index.js';
import { SEARCH_SERVICE } from '../search/index.js';
import { CodeIndex, codeIndexPrefix } from './code/code-index.js';
import { registerCodeRoutes } from './code/routes.js';
import { registerApplyRoute } from './patches/apply-route.js';
import type { ForgeClient } from './forge/client.js';
import { GitHubForge } from './forge/github.js';
import type { Gateway } from './gateway.js';
import { playbookPermissions, setupPlaybooks } from './playbooks/setup.js';
import type { ProviderConfig } from './provider-config.js';
import type { SecretBox } from './secret-box.js';
import type { AgentOptions } from './options.js';
import { Repositories } from './repos/repositories.js';
import { registerRepoRoutes } from './repos/routes.js';
import { Workspaces } from './repos/workspaces.js';
import { registerTickets, ticketPermissions, type TicketDeps } from './jobs/register.js';
import { hiddenPaths, Sandbox } from './sandbox/run.js';
import type { Offload } from './worker/offload.js';
import { setupWorkers, type WorkerSettings } from './worker/setup.js';

/** Where workspaces live when the `workspaces.dir` option is absent: beside the data directory. */
export function defaultWorkspacesDir(dataDir: string): string {
  return path.join(path.dirname(dataDir), `${path.basename(dataDir)}-agent-workspaces`);
}

/** The sandbox of the `sandbox` option, hiding the service's data directory, key file and workspaces from test runs. */
export function sandboxOf(ctx: PluginContext<AgentOptions>, workspacesDir: string): Sandbox {
  const s = ctx.config.sandbox;
  const dir = path.resolve(s.dir ?? path.join(os.tmpdir(), 'tessera-agent-sandbox'));
  const keyFile = path.resolve(path.dirname(ctx.app.dataDir), ctx.config.keyFile ?? `${path.basename(ctx.app.dataDir)}-agent-secrets.key`);
  const hide = hiddenPaths({ dataDir: ctx.app.dataDir, keyFile, workspaces: workspacesDir, sandbox: dir, extra: s.hidePaths });
  return new Sandbox({ ...s, dir, hide });
}

/** The forge client of the `forge` option, or `undefined`. */
export function forgeOf(ctx: PluginContext<AgentOptions>): { client: ForgeClient; token?: string } | undefined {
  const f = ctx.config.forge;
  if (!f) return undefined;
  const token = f.token ?? (f.tokenEnv ? process.env[f.tokenEnv] : undefined);
  const client = new GitHubForge(f.baseUrl, token, async (url, init) => {
    const res = await ctx.outbound.fetch(url, { ...init, trusted: true, maxBytes: 20_000_000 });
    return { status: res.status, text: () => res.text() };
  });
  return { client, ...(token ? { token } : {}) };
}

/**
 * Part 2 of the agent service: repositories in per-tenant-and-user workspaces, their syntax trees and
 * knowledge graph, verified patches, sandboxed test runs, branches and pull requests on the forge.
 */
export function setupPart2(
  ctx: PluginContext<AgentOptions>,
  models: { secretBox: SecretBox; gateway: Gateway; providerConfig: ProviderConfig; settings: WorkerSettings } & Pick<TicketDeps, 'budgets' | 'deadLetters'>,
): { offload: Offload } {
  const o = ctx.config;
  const workspaces = new Workspaces(path.resolve(o.workspaces.dir ?? defaultWorkspacesDir(ctx.app.dataDir)), o.workspaces.retentionHours * 3_600_000);
  const forge = forgeOf(ctx);
  const repos = new Repositories({
    ...(o.reposRoot ? { reposRoot: path.resolve(o.reposRoot) } : {}),
    ...(forge ? { forge: forge.client, ...(forge.token ? { forgeToken: forge.token } : {}) } : {}),
    workspaces,
    refreshMs: o.workspaces.refreshSeconds * 1000,
  });
  const sandbox = sandboxOf(ctx, workspaces.root);
  const sweep = () => {
    const removed = workspaces.sweep();
    if (removed.length) ctx.log.info({ removed: removed.length }, 'agent workspaces past their retention removed');
  };
  let timer: NodeJS.Timeout | undefined;
  ctx.onStart(() => {
    ctx.log.info({ isolation: sandbox.isolation() }, 'agent test runs are sandboxed');
    sweep();
    timer = setInterval(sweep, Math.min(3_600_000, Math.max(60_000, o.workspaces.retentionHours * 360_000)));
    timer.unref();
  });
  ctx.onStop(() => clearInterval(timer));
  registerRepoRoutes(ctx, repos);
  const graph = ctx.container.resolve(GRAPH_SERVICE);
  // The code indexes' graphs are the agent's explicit triples: no mention linking over declarations.
  graph.manageIndexes((_tenant, index) => index.startsWith(codeIndexPrefix));
  const graphs = new CodeIndex(ctx.store, ctx.container.resolve(SEARCH_SERVICE), graph);
  registerCodeRoutes(ctx, repos, graphs);
  registerApplyRoute(ctx, { repos, ...(forge ? { forge: forge.client } : {}) });
  setupPlaybooks(ctx, {
    repos,
    secretBox: models.secretBox,
    gateway: models.gateway,
    providerConfig: models.providerConfig,
    ...(forge ? { forge: forge.client } : {}),
  });
  const offload = setupWorkers(ctx, models.settings);
  registerTickets(ctx, {
    offload,
    gateway: models.gateway,
    config: models.providerConfig,
    budgets: models.budgets,
    deadLetters: models.deadLetters,
    repos,
    graphs,
    sandbox,
    forge: forge?.client,
  });
  return { offload };
}

/** The permissions part 2's routes declare. */
export const part2Permissions = [
  { name: 'repos:read', description: 'List repository files and read the code knowledge graph.' },
  { name: 'code:apply', description: 'Apply a verified diff, push its branch and open a pull request.' },
  { name: 'playbooks:review', description: 'Review a pull request or a diff.' },
  ...playbookPermissions,
  ...ticketPermissions,
];
