/**
 * The search plugin's CLI commands: `tessera plan` and `tessera apply`, the configuration plan
 * (docs/config-plan.md) against a running server, as Terraform plans to a file and applies it.
 * `runtime/cli.ts` finds this module and dispatches to it. Exit codes: 0 success, 1 the server
 * refused (a stale or destructive plan, an invalid spec, an unreachable server), 2 bad usage.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { defineCommands, type CliArgs, type CliHost, type CliOption } from 'tessera-runtime/plugin';

interface PlanStep {
  action: string;
  target: string;
  details?: Record<string, unknown>;
}

interface Planned {
  plan: PlanStep[];
  hash: string;
}

const connection: Record<string, CliOption> = {
  url: { type: 'string', valueName: 'URL', description: 'The search listener (default http://127.0.0.1:3848)' },
  'api-key': { type: 'string', valueName: 'KEY', description: 'An API key with index:admin (default: $TESSERA_API_KEY)' },
  tenant: { type: 'string', valueName: 'ID', description: 'The tenant to plan for (X-Tenant; default: the tenant of the key)' },
};

const signs: Record<string, string> = {
  create_index: '+',
  add_field: '+',
  update_setting: '~',
  change_field: '~',
  remove_field: '-',
  delete_index: '-',
};

class ServerRefused extends Error {}

async function post(args: CliArgs, route: string, body: unknown): Promise<Record<string, unknown>> {
  const base = ((args.values.url as string | undefined) ?? 'http://127.0.0.1:3848').replace(/\/+$/, '');
  const headers: Record<string, string> = { 'content-type': 'application/json' };
  const key = (args.values['api-key'] as string | undefined) ?? process.env.TESSERA_API_KEY;
  if (key) headers['x-api-key'] = key;
  if (args.values.tenant !== undefined) headers['x-tenant'] = args.values.tenant as string;
  let res: Response;
  try {
    res = await fetch(`${base}${route}`, { method: 'POST', headers, body: JSON.stringify(body) });
  } catch (err) {
    throw new ServerRefused(`cannot reach ${base}: ${(err as Error).message}`);
  }
  const answer = (await res.json().catch(() => ({}))) as Record<string, unknown>;
  if (!res.ok) {
    const error = (answer.error ?? {}) as { code?: string; message?: string; details?: unknown };
    const details = error.details === undefined ? '' : `\n${JSON.stringify(error.details, null, 2)}`;
    throw new ServerRefused(`${res.status} ${error.code ?? 'error'}: ${error.message ?? res.statusText}${details}`);
  }
  return answer;
}

function readJson(host: CliHost, file: string): Record<string, unknown> {
  const text = readFileSync(path.resolve(host.cwd, file), 'utf8');
  const value = JSON.parse(text) as unknown;
  if (value === null || typeof value !== 'object' || Array.isArray(value)) throw new Error(`${file}: a JSON object is expected`);
  return value as Record<string, unknown>;
}

/** One line per step, Terraform's way: `+` adds, `~` changes, `-` removes; destructive steps say so. */
export function formatPlan(planned: Planned): string {
  if (planned.plan.length === 0) return 'No changes: the indexes match the spec.\n';
  const lines = planned.plan.map((step) => {
    const d = step.details ?? {};
    const notes = [
      d.destructive === true ? 'DESTRUCTIVE' : '',
      d.requiresReindex === true ? 're-index' : '',
      'from' in d || 'to' in d ? `${JSON.stringify(d.from)} -> ${JSON.stringify(d.to)}` : '',
    ].filter(Boolean);
    return `  ${signs[step.action] ?? '?'} ${step.action} ${step.target}${notes.length > 0 ? `  (${notes.join(', ')})` : ''}`;
  });
  const destructive = planned.plan.filter((s) => s.details?.destructive === true).length;
  return `${lines.join('\n')}\n\n${planned.plan.length} step${planned.plan.length === 1 ? '' : 's'}, ${destructive} destructive. Plan hash ${planned.hash}\n`;
}

async function guarded(host: CliHost, work: () => Promise<number>): Promise<number> {
  try {
    return await work();
  } catch (err) {
    host.stderr(`tessera: ${(err as Error).message}\n`);
    return 1;
  }
}

export const commands = defineCommands([
  {
    name: 'plan',
    args: '<spec.json>',
    summary: "Show what applying a configuration spec would change on a running server's indexes",
    positionals: { min: 1, max: 1 },
    options: {
      ...connection,
      out: { type: 'string', valueName: 'FILE', description: 'Save the plan and its hash for `tessera apply FILE`' },
      json: { type: 'boolean', description: 'Print the plan as JSON' },
    },
    run: (args, host) =>
      guarded(host, async () => {
        const spec = readJson(host, args.positionals[0]!);
        const planned = (await post(args, '/v1/config/plan', spec)) as unknown as Planned;
        const saved = { plan: planned.plan, hash: planned.hash };
        if (args.values.out !== undefined) writeFileSync(path.resolve(host.cwd, args.values.out as string), `${JSON.stringify(saved, null, 2)}\n`);
        host.stdout(args.values.json === true ? `${JSON.stringify(saved, null, 2)}\n` : formatPlan(planned));
        return 0;
      }),
  },
  {
    name: 'apply',
    args: '<plan.json | spec.json>',
    summary: 'Apply a plan saved by `tessera plan --out` (refused if the indexes changed since), or plan and apply a spec',
    positionals: { min: 1, max: 1 },
    options: {
      ...connection,
      'allow-destructive': { type: 'boolean', description: 'Carry out destructive steps (dropping an index, a field or a type)' },
    },
    run: (args, host) =>
      guarded(host, async () => {
        const file = readJson(host, args.positionals[0]!);
        let planned: Planned;
        if (Array.isArray(file.plan) && typeof file.hash === 'string') planned = file as unknown as Planned;
        else {
          planned = (await post(args, '/v1/config/plan', file)) as unknown as Planned;
          host.stdout(formatPlan(planned));
        }
        const answer = await post(args, '/v1/config/apply', {
          plan: planned.plan,
          hash: planned.hash,
          allowDestructive: args.values['allow-destructive'] === true,
        });
        const applied = (answer.applied as unknown[] | undefined)?.length ?? 0;
        host.stdout(`Applied ${applied} step${applied === 1 ? '' : 's'}; documents lost: ${String(answer.documentsLost ?? 0)}.\n`);
        return 0;
      }),
  },
]);
