/**
 * The file side of the workflow CLI: loading a set of workflow files (JSON specs and DSL modules)
 * and validating them statically as one set, as the hub validates one tenant's workflows.
 */
import { existsSync } from 'node:fs';
import path from 'node:path';
import { loadWorkflowFile, workflowFilesIn, type InjectFn } from './service.js';
import type { WorkflowSpec } from './spec.js';
import { routeKey, validateSpec, type SpecIssue } from './validate.js';
import { workflowOptions } from './options.js';

export interface FileReport {
  /** As given or found, relative to the working directory when inside it. */
  file: string;
  valid: boolean;
  workflow?: { name: string; route: string };
  errors: SpecIssue[];
}

export interface LoadedSet {
  reports: FileReport[];
  /** The valid specs, in file order. */
  specs: Array<{ spec: WorkflowSpec; file: string; inject?: InjectFn }>;
  valid: boolean;
}

const shown = (cwd: string, file: string): string => {
  const rel = path.relative(cwd, path.resolve(cwd, file));
  return rel.startsWith('..') || path.isAbsolute(rel) ? file : rel;
};

/**
 * Loads and validates every workflow file the targets name (files or directories). Routes must be
 * unique within the set; nothing runs (a DSL module is imported to build its spec, as `serve` would).
 */
export async function loadWorkflowSet(targets: readonly string[], cwd: string): Promise<LoadedSet> {
  const maxSteps = workflowOptions.parse({}).limits.maxSteps;
  const reports: FileReport[] = [];
  const specs: LoadedSet['specs'] = [];
  const routes = new Map<string, string>();
  const names = new Map<string, string>();
  for (const target of targets) {
    const absolute = path.resolve(cwd, target);
    if (!existsSync(absolute)) {
      reports.push({ file: target, valid: false, errors: [{ path: '$', message: 'no such file or directory' }] });
      continue;
    }
    const files = workflowFilesIn(absolute);
    if (files.length === 0)
      reports.push({ file: target, valid: false, errors: [{ path: '$', message: 'no workflow files (*.json, *.js, *.mjs) in this directory' }] });
    for (const file of files) {
      const name = shown(cwd, file);
      let loaded;
      try {
        loaded = await loadWorkflowFile(file);
      } catch (err) {
        const what = file.endsWith('.json') ? 'not valid JSON' : 'the module failed to load';
        reports.push({ file: name, valid: false, errors: [{ path: '$', message: `${what}: ${(err as Error).message}` }] });
        continue;
      }
      const result = validateSpec(loaded.spec, { takenRoutes: routes, maxSteps });
      const errors = [...result.errors];
      const spec = result.spec;
      if (spec && names.has(spec.name)) errors.push({ path: '$.name', message: `workflow "${spec.name}" is also defined in ${names.get(spec.name)}` });
      if (spec && errors.length === 0) {
        routes.set(routeKey(spec.route.method, spec.route.path), spec.name);
        names.set(spec.name, name);
        specs.push({ spec, file: name, inject: loaded.inject });
      }
      reports.push({
        file: name,
        valid: errors.length === 0,
        ...(spec ? { workflow: { name: spec.name, route: `${spec.route.method} ${spec.route.path}` } } : {}),
        errors,
      });
    }
  }
  return { reports, specs, valid: reports.every((r) => r.valid) };
}

/** `file: $.path: message` lines, one per problem, and a summary line. */
export function formatReports(reports: readonly FileReport[]): string {
  const lines: string[] = [];
  for (const r of reports) {
    if (r.valid) lines.push(`${r.file}: valid (${r.workflow!.name}, ${r.workflow!.route})`);
    else for (const e of r.errors) lines.push(`${r.file}: ${e.path}: ${e.message}`);
  }
  const bad = reports.filter((r) => !r.valid);
  const problems = bad.reduce((n, r) => n + r.errors.length, 0);
  lines.push(
    bad.length === 0
      ? `${reports.length} workflow file${reports.length === 1 ? '' : 's'} valid`
      : `${problems} error${problems === 1 ? '' : 's'} in ${bad.length} of ${reports.length} file${reports.length === 1 ? '' : 's'}`,
  );
  return `${lines.join('\n')}\n`;
}
