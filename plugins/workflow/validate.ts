/**
 * Static validation of a workflow spec: schema, per-kind configuration, unique step ids, template
 * references that resolve on every path, conditions that parse, the route's shape and collisions.
 * Nothing is executed.
 */
import { configSchemas, stepKinds, routePathPattern, workflowSpecSchema, type StepSpec, type WorkflowSpec } from './spec.js';
import { ExprError, exprRefs, parseExpr } from './expr.js';
import { refsInString, stringsIn, TemplateError, type TemplateRef } from './template.js';

export interface SpecIssue {
  /** A JSON path into the spec: `$.steps[1].config.condition`. */
  path: string;
  message: string;
}

export interface ValidateOptions {
  /** Routes served by other workflows: `METHOD /normalised/:/path` -> workflow id. */
  takenRoutes?: ReadonlyMap<string, string>;
  /** The id of the workflow being updated (its own route is not a collision). */
  self?: string;
  /** Largest number of steps (nested ones included). */
  maxSteps?: number;
}

export interface ValidationResult {
  valid: boolean;
  errors: SpecIssue[];
  spec?: WorkflowSpec;
  /** True when the only errors are route collisions (create answers 409 then). */
  collision?: { route: string; workflow: string };
}

/** Paths served by the runtime or the hub; a workflow route may not start with them. */
export const reservedPrefixes = ['/hub', '/health', '/metrics', '/openapi.json', '/v1'];

/** `POST /orders/:id` -> `POST /orders/:`: the key two routes collide on. */
export function routeKey(method: string, path: string): string {
  const norm = path
    .split('/')
    .map((s) => (s.startsWith(':') ? ':' : s))
    .join('/')
    .replace(/\/$/, '');
  return `${method.toUpperCase()} ${norm || '/'}`;
}

function zodPath(path: ReadonlyArray<PropertyKey>): string {
  let out = '$';
  for (const p of path) out += typeof p === 'number' ? `[${p}]` : `.${String(p)}`;
  return out;
}

/** Set of step ids whose output is available, threaded through the walk. */
type Known = ReadonlySet<string>;

export function validateSpec(raw: unknown, options: ValidateOptions = {}): ValidationResult {
  const errors: SpecIssue[] = [];
  const parsed = workflowSpecSchema.safeParse(raw);
  if (!parsed.success) {
    for (const issue of parsed.error.issues) errors.push({ path: zodPath(issue.path), message: issue.message });
    return { valid: false, errors };
  }
  const spec = parsed.data;
  const maxSteps = options.maxSteps ?? 500;

  // Route shape and reserved prefixes.
  const { method, path } = spec.route;
  if (!routePathPattern.test(path)) {
    errors.push({ path: '$.route.path', message: 'a route path starts with / and has segments of letters, digits, . _ ~ - or :param' });
  } else if (reservedPrefixes.some((p) => path === p || path.startsWith(`${p}/`))) {
    errors.push({ path: '$.route.path', message: `${path} is reserved (${reservedPrefixes.join(', ')})` });
  }

  const attrs = new Set(['tenant', ...(spec.attrs ?? [])]);
  const ids = new Map<string, string>();
  let count = 0;

  const checkRef = (ref: TemplateRef, where: string, known: Known): void => {
    if (ref.root === 'attrs' && !attrs.has(ref.path[0]!)) {
      errors.push({ path: where, message: `{{${ref.raw}}}: no attribute "${ref.path[0]}" (known: ${[...attrs].join(', ')}; declare others in "attrs")` });
    }
    if (ref.root === 'steps') {
      const id = ref.path[0]!;
      if (!known.has(id)) {
        errors.push({
          path: where,
          message: ids.has(id) ? `{{${ref.raw}}}: step "${id}" has not run on every path that reaches here` : `{{${ref.raw}}}: no step "${id}" before this one`,
        });
      }
    }
  };

  const checkTemplates = (value: unknown, where: string, known: Known): void => {
    for (const [s, p] of stringsIn(value, where)) {
      for (const r of refsInString(s)) {
        if (r instanceof TemplateError) errors.push({ path: p, message: r.message });
        else checkRef(r, p, known);
      }
    }
  };

  const checkCondition = (src: unknown, where: string, known: Known): void => {
    if (typeof src !== 'string') return;
    try {
      for (const r of exprRefs(parseExpr(src))) checkRef(r, where, known);
    } catch (err) {
      if (err instanceof ExprError) errors.push({ path: where, message: `condition does not parse at offset ${err.offset}: ${err.message}` });
      else throw err;
    }
  };

  const claim = (id: string, where: string): void => {
    count++;
    const first = ids.get(id);
    if (first !== undefined) errors.push({ path: `${where}.id`, message: `step id "${id}" is already used at ${first}` });
    else ids.set(id, where);
  };

  /** Walks a sequence; returns the ids available after it on every path. */
  const walk = (steps: readonly StepSpec[], where: string, known: Known): Set<string> => {
    const avail = new Set(known);
    steps.forEach((step, i) => {
      const at = `${where}[${i}]`;
      claim(step.id, at);
      const cfgSchema = configSchemas[step.kind];
      const cfg = cfgSchema.safeParse(step.config ?? {});
      if (!cfg.success)
        for (const issue of cfg.error.issues) errors.push({ path: zodPath([...pathOf(`${at}.config`), ...issue.path]), message: issue.message });
      const config = (cfg.success ? cfg.data : (step.config ?? {})) as Record<string, any>;

      if (step.kind !== 'when' && step.steps !== undefined)
        errors.push({ path: `${at}.steps`, message: `"steps" belongs to "when" steps, not "${step.kind}"` });
      if (step.kind !== 'fanOut' && (step.branches !== undefined || step.join !== undefined))
        errors.push({ path: `${at}.branches`, message: `"branches" and "join" belong to "fanOut" steps, not "${step.kind}"` });

      switch (step.kind) {
        case 'map':
          checkTemplates(config.set, `${at}.config.set`, avail);
          break;
        case 'mock':
          checkTemplates(config.response, `${at}.config.response`, avail);
          break;
        case 'when':
          checkCondition(config.condition, `${at}.config.condition`, avail);
          if (!step.steps) errors.push({ path: `${at}.steps`, message: '"when" needs "steps"' });
          walk(step.steps ?? [], `${at}.steps`, avail);
          break;
        case 'branch': {
          const cases: Array<{ when: string; steps: StepSpec[] }> = Array.isArray(config.cases) ? config.cases : [];
          cases.forEach((c, j) => {
            checkCondition(c?.when, `${at}.config.cases[${j}].when`, avail);
            if (Array.isArray(c?.steps)) walk(c.steps, `${at}.config.cases[${j}].steps`, avail);
          });
          if (Array.isArray(config.default)) walk(config.default, `${at}.config.default`, avail);
          break;
        }
        case 'fanOut': {
          if (!step.branches || step.branches.length === 0) errors.push({ path: `${at}.branches`, message: '"fanOut" needs at least one branch' });
          if (!step.join) errors.push({ path: `${at}.join`, message: '"fanOut" needs a "join" step' });
          const after = new Set<string>();
          (step.branches ?? []).forEach((b, j) => {
            for (const id of walk(b, `${at}.branches[${j}]`, avail)) after.add(id);
          });
          if (step.join) {
            claim(step.join.id, `${at}.join`);
            for (const id of after) avail.add(id);
            avail.add(step.join.id);
          }
          break;
        }
      }
      avail.add(step.id);
    });
    return avail;
  };
  walk(spec.steps, '$.steps', new Set());
  if (count > maxSteps) errors.push({ path: '$.steps', message: `${count} steps; at most ${maxSteps} are allowed` });

  for (const [i, f] of spec.searchFields.entries()) {
    for (const seg of f.split('.'))
      if (['__proto__', 'constructor', 'prototype'].includes(seg)) errors.push({ path: `$.searchFields[${i}]`, message: `"${seg}" is not allowed in a path` });
  }

  let collision: ValidationResult['collision'];
  const key = routeKey(method, path);
  const owner = options.takenRoutes?.get(key);
  if (owner !== undefined && owner !== (options.self ?? spec.name)) {
    collision = { route: `${method} ${path}`, workflow: owner };
    errors.push({ path: '$.route', message: `${method} ${path} is already served by workflow "${owner}"` });
  }
  return { valid: errors.length === 0, errors, spec, collision: collision && errors.length === 1 ? collision : undefined };
}

function pathOf(jsonPath: string): Array<string | number> {
  const out: Array<string | number> = [];
  for (const m of jsonPath.slice(1).matchAll(/\.([^.[\]]+)|\[(\d+)\]/g)) out.push(m[1] !== undefined ? m[1] : Number(m[2]));
  return out;
}

/** Every step of a spec (nested ones and joins included), in document order. */
export function allSteps(steps: readonly StepSpec[]): Array<StepSpec | { id: string; kind: string }> {
  const out: Array<StepSpec | { id: string; kind: string }> = [];
  for (const s of steps) {
    out.push(s);
    if (s.steps) out.push(...allSteps(s.steps));
    for (const b of s.branches ?? []) out.push(...allSteps(b));
    if (s.join) out.push(s.join);
    const cfg = s.config as { cases?: Array<{ steps?: StepSpec[] }>; default?: StepSpec[] } | undefined;
    if (s.kind === 'branch') {
      for (const c of cfg?.cases ?? []) out.push(...allSteps(c.steps ?? []));
      out.push(...allSteps(cfg?.default ?? []));
    }
  }
  return out;
}

/** Top-level input fields the templates and conditions read (`{{input.x...}}` in the first step's scope and beyond). */
export function inputFields(spec: WorkflowSpec): string[] {
  const fields = new Set<string>(spec.input?.required ?? []);
  const collect = (value: unknown): void => {
    for (const [s] of stringsIn(value, '$'))
      for (const r of refsInString(s)) if (!(r instanceof TemplateError) && r.root === 'input' && r.path[0]) fields.add(r.path[0]);
  };
  for (const step of allSteps(spec.steps)) {
    const cfg = (step as StepSpec).config ?? {};
    if (step.kind === 'when' && typeof cfg.condition === 'string') {
      try {
        for (const r of exprRefs(parseExpr(cfg.condition))) if (r.root === 'input' && r.path[0]) fields.add(r.path[0]);
      } catch {
        /* invalid specs are not served */
      }
    } else if (step.kind === 'branch') {
      for (const c of (cfg.cases as Array<{ when: string }>) ?? []) {
        try {
          for (const r of exprRefs(parseExpr(c.when))) if (r.root === 'input' && r.path[0]) fields.add(r.path[0]);
        } catch {
          /* ignore */
        }
      }
    } else collect(step.kind === 'map' ? cfg.set : step.kind === 'mock' ? cfg.response : undefined);
  }
  return [...fields].sort();
}

export const knownStepKinds = stepKinds;
