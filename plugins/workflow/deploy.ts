/** Deploy plans (a diff of target specs against what is deployed) and standalone bundles. */
import { createHash } from 'node:crypto';
import type { WorkflowSpec } from './spec.js';
import type { WorkflowRecord } from './storage.js';
import { inputFields } from './validate.js';

export interface BreakingChange {
  workflow: string;
  kind: 'route_removed' | 'method_changed' | 'required_input_added';
  message: string;
}

export interface DeployPlan {
  hash: string;
  added: Array<{ workflow: string; route: string }>;
  changed: Array<{ workflow: string; fields: string[]; fromVersion: string; toVersion: string }>;
  removed: Array<{ workflow: string; route: string }>;
  unchanged: string[];
  routes: { added: string[]; removed: string[] };
  breaking: BreakingChange[];
}

/** JSON with object keys sorted, for hashing and comparison. */
export function canonical(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonical).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    return `{${Object.keys(value)
      .sort()
      .filter((k) => (value as Record<string, unknown>)[k] !== undefined)
      .map((k) => `${JSON.stringify(k)}:${canonical((value as Record<string, unknown>)[k])}`)
      .join(',')}}`;
  }
  return JSON.stringify(value);
}

const routeOf = (s: Pick<WorkflowSpec, 'route'>): string => `${s.route.method} ${s.route.path}`;
const required = (s: WorkflowSpec): string[] => s.input?.required ?? [];

export function planDeploy(current: readonly WorkflowRecord[], target: readonly WorkflowSpec[]): DeployPlan {
  const cur = new Map(current.map((w) => [w.id, w.spec]));
  const tgt = new Map(target.map((s) => [s.name, s]));
  const plan: DeployPlan = { hash: '', added: [], changed: [], removed: [], unchanged: [], routes: { added: [], removed: [] }, breaking: [] };
  for (const [name, spec] of tgt) {
    const before = cur.get(name);
    if (!before) {
      plan.added.push({ workflow: name, route: routeOf(spec) });
      plan.routes.added.push(routeOf(spec));
      continue;
    }
    const fields = (['version', 'route', 'searchFields', 'tags', 'attrs', 'input', 'steps', 'description'] as const).filter(
      (k) => canonical(before[k]) !== canonical(spec[k]),
    );
    if (fields.length === 0) {
      plan.unchanged.push(name);
      continue;
    }
    plan.changed.push({ workflow: name, fields, fromVersion: before.version, toVersion: spec.version });
    if (routeOf(before) !== routeOf(spec)) {
      plan.routes.removed.push(routeOf(before));
      plan.routes.added.push(routeOf(spec));
      if (before.route.method !== spec.route.method)
        plan.breaking.push({
          workflow: name,
          kind: 'method_changed',
          message: `${name}: method ${before.route.method} -> ${spec.route.method} on ${spec.route.path}`,
        });
      if (before.route.path !== spec.route.path)
        plan.breaking.push({ workflow: name, kind: 'route_removed', message: `${name}: ${routeOf(before)} is no longer served (moved to ${spec.route.path})` });
    }
    const added = required(spec).filter((f) => !required(before).includes(f));
    if (added.length > 0) plan.breaking.push({ workflow: name, kind: 'required_input_added', message: `${name}: new required input ${added.join(', ')}` });
  }
  for (const [name, spec] of cur) {
    if (tgt.has(name)) continue;
    plan.removed.push({ workflow: name, route: routeOf(spec) });
    plan.routes.removed.push(routeOf(spec));
    plan.breaking.push({ workflow: name, kind: 'route_removed', message: `${name}: ${routeOf(spec)} is removed` });
  }
  const state = (m: Map<string, WorkflowSpec>): string => canonical([...m.entries()].sort(([a], [b]) => (a < b ? -1 : 1)));
  plan.hash = createHash('sha256')
    .update(`${state(cur)}\n${state(tgt)}`)
    .digest('hex');
  return plan;
}

export interface Bundle {
  name: string;
  hash: string;
  /** Relative path -> file content. */
  files: Record<string, string>;
}

/** A standalone runnable bundle: specs, a manifest and a package.json whose start runs `tessera serve`. */
export function buildBundle(name: string, specs: readonly WorkflowSpec[], tesseraVersion: string, port = 8787, tests: Record<string, string> = {}): Bundle {
  const files: Record<string, string> = { ...tests };
  for (const s of specs) files[`workflows/${s.name}.json`] = `${JSON.stringify(s, null, 2)}\n`;
  files['package.json'] = `${JSON.stringify(
    {
      name,
      private: true,
      type: 'module',
      scripts: {
        start: `tessera serve --workflows workflows --port ${port}`,
        validate: 'tessera validate workflows',
        test: 'tessera test --workflows workflows --mode compare --pass-with-no-tests',
      },
      dependencies: { tessera: `^${tesseraVersion}` },
    },
    null,
    2,
  )}\n`;
  files['manifest.json'] = `${JSON.stringify(
    {
      $schema: './node_modules/tessera-runtime/docs/manifest.schema.json',
      name,
      dataDir: './data',
      listeners: [{ name: 'hub', port, plugins: ['rbac', 'workflow'], metricsPath: '/metrics' }],
      plugins: { rbac: {}, workflow: { options: { workflows: './workflows' } } },
      auth: { provider: 'rbac' },
    },
    null,
    2,
  )}\n`;
  files['README.md'] =
    `# ${name}\n\nA Tessera workflow bundle: ${specs.map((s) => `\`${s.name}\` (${s.route.method} ${s.route.path})`).join(', ')}.\n\n    npm install\n    npm start            # tessera serve --workflows workflows --port ${port}\n\nor \`npx tessera serve --manifest manifest.json\`. Inputs: ${specs.map((s) => `${s.name}: ${inputFields(s).join(', ') || '-'}`).join('; ')}.\n`;
  const hash = createHash('sha256').update(canonical(files)).digest('hex');
  return { name, hash, files };
}
