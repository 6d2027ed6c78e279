/**
 * The workflow plugin's CLI commands (seed 001): `serve --workflows`, `validate`, `test` and `export`.
 * `runtime/cli.ts` finds this module and dispatches to it; exit codes are 0 success, 1 failure
 * (invalid workflows, failing tests, a start-up failure), 2 bad usage (docs/workflow.md).
 */
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { defineCommands, type CliHost } from 'tessera-runtime/plugin';
import { formatReports, loadWorkflowSet } from './cli-files.js';
import { formatTestResults, runTestFiles, testFilesIn } from './cli-test.js';
import { buildBundle } from './deploy.js';
import { workflowOptions } from './options.js';

const usageError = (host: CliHost, message: string): number => {
  host.stderr(`tessera: ${message} (tessera --help shows every option)\n`);
  return 2;
};

/** Parses `--port`; undefined when invalid. */
const portOf = (value: unknown, fallback: number): number | undefined => {
  if (value === undefined) return fallback;
  const n = Number(value);
  return /^\d+$/.test(String(value)) && n <= 65535 ? n : undefined;
};

const bundleName = /^[a-z0-9][a-z0-9._-]{0,63}$/;

export const commands = defineCommands([
  {
    name: 'serve',
    selectedBy: ['workflows'],
    summary: 'Serve workflow files (JSON specs or DSL modules) with the hub on one port',
    options: {
      workflows: { type: 'string', valueName: 'PATH', description: 'A workflow file or a directory of them (*.json, *.js, *.mjs)' },
      port: { type: 'string', valueName: 'N', description: 'Port of the workflow listener (default 8787; 0 picks a free one)' },
      'data-dir': { type: 'string', valueName: 'DIR', description: 'Store directory (default: ./data)' },
      'db-path': { type: 'string', valueName: 'FILE', description: 'Keep workflows and traces in this SQLite file instead of LMDB' },
      'protect-invoke': { type: 'boolean', description: 'Workflow routes require a key with api:invoke' },
    },
    async run({ values }, host) {
      const port = portOf(values.port, 8787);
      if (port === undefined) return usageError(host, `--port must be an integer from 0 to 65535, not "${String(values.port)}"`);
      const workflows = path.resolve(host.cwd, values.workflows as string);
      if (!existsSync(workflows)) {
        host.stderr(`tessera: ${values.workflows as string}: no such file or directory\n`);
        return 1;
      }
      const options: Record<string, unknown> = { workflows };
      if (values['db-path'] !== undefined) options.dbPath = path.resolve(host.cwd, values['db-path'] as string);
      if (values['protect-invoke'] === true) options.protectInvoke = true;
      // The same platform as manifests/workflow-platform.json, built from the command line.
      const manifest = {
        name: 'workflows',
        dataDir: path.resolve(host.cwd, (values['data-dir'] as string | undefined) ?? 'data'),
        listeners: [{ name: 'hub', port, plugins: ['rbac', 'workflow'], metricsPath: '/metrics' }],
        plugins: { rbac: { options: {} }, workflow: { options } },
        auth: { provider: 'rbac' },
      };
      return host.serve(manifest, { dir: host.cwd, label: `serve --workflows ${values.workflows as string}` });
    },
  },
  {
    name: 'validate',
    args: '<file>...',
    positionals: { min: 1, max: 1000 },
    summary: 'Validate workflow specs (files or directories) statically; runs nothing',
    options: { json: { type: 'boolean', description: 'Print {valid, files: [{file, valid, workflow, errors: [{path, message}]}]}' } },
    async run({ values, positionals }, host) {
      const set = await loadWorkflowSet(positionals, host.cwd);
      if (values.json === true) host.stdout(`${JSON.stringify({ valid: set.valid, files: set.reports }, null, 2)}\n`);
      else (set.valid ? host.stdout : host.stderr)(formatReports(set.reports));
      return set.valid ? 0 : 1;
    },
  },
  {
    name: 'test',
    summary: 'Run the *.test.json regression tests beside the workflows',
    options: {
      workflows: { type: 'string', valueName: 'PATH', description: 'A workflow file or a directory of them and their tests' },
      mode: { type: 'string', valueName: 'MODE', description: 'compare (default): diff outputs with "expected"; record: write them there' },
      'pass-with-no-tests': { type: 'boolean', description: 'Exit 0 when there is no test' },
      json: { type: 'boolean', description: 'Print {passed, failed, errors, results} as JSON' },
    },
    async run({ values }, host) {
      const mode = (values.mode as string | undefined) ?? 'compare';
      if (mode !== 'compare' && mode !== 'record') return usageError(host, `--mode is compare or record, not "${mode}"`);
      if (values.workflows === undefined) return usageError(host, 'test needs --workflows PATH');
      const set = await loadWorkflowSet([values.workflows as string], host.cwd);
      if (!set.valid) {
        host.stderr(formatReports(set.reports));
        return 1;
      }
      const files = testFilesIn(path.resolve(host.cwd, values.workflows as string));
      if (files.length === 0) {
        host.stderr(`tessera: no *.test.json files beside ${values.workflows as string}\n`);
        return values['pass-with-no-tests'] === true ? 0 : 1;
      }
      const defaults = workflowOptions.parse({});
      const results = await runTestFiles(files, new Map(set.specs.map((s) => [s.spec.name, s.spec])), {
        mode,
        maxDurationMs: defaults.limits.maxDurationMs,
        defaultTenant: defaults.defaultTenant,
        shown: (f) => path.relative(host.cwd, f) || f,
      });
      const ok = results.every((r) => r.status === 'passed');
      if (values.json === true) {
        const count = (s: string) => results.filter((r) => r.status === s).length;
        host.stdout(`${JSON.stringify({ mode, passed: count('passed'), failed: count('failed'), errors: count('error'), results }, null, 2)}\n`);
      } else (ok ? host.stdout : host.stderr)(formatTestResults(results));
      return ok ? 0 : 1;
    },
  },
  {
    name: 'export',
    summary: 'Write a standalone runnable bundle of the workflows to a directory',
    options: {
      out: { type: 'string', valueName: 'DIR', description: 'Directory to write (created; must be empty unless --force)' },
      workflows: { type: 'string', valueName: 'PATH', description: 'A workflow file or a directory of them' },
      name: { type: 'string', valueName: 'NAME', description: "The bundle's package name (default: the directory's name)" },
      port: { type: 'string', valueName: 'N', description: 'Port its start script serves on (default 8787)' },
      force: { type: 'boolean', description: 'Write into a directory that is not empty' },
    },
    async run({ values }, host) {
      if (values.out === undefined || values.workflows === undefined) return usageError(host, 'export needs --out DIR and --workflows PATH');
      const port = portOf(values.port, 8787);
      if (port === undefined) return usageError(host, `--port must be an integer from 0 to 65535, not "${String(values.port)}"`);
      const out = path.resolve(host.cwd, values.out as string);
      const name =
        (values.name as string | undefined) ??
        path
          .basename(out)
          .toLowerCase()
          .replace(/[^a-z0-9._-]+/g, '-');
      if (!bundleName.test(name)) return usageError(host, `--name must match ${String(bundleName)}, not "${name}"`);
      if (existsSync(out) && readdirSync(out).length > 0 && values.force !== true) {
        host.stderr(`tessera: ${values.out as string} is not empty (use --force to write into it)\n`);
        return 1;
      }
      const set = await loadWorkflowSet([values.workflows as string], host.cwd);
      if (!set.valid) {
        host.stderr(formatReports(set.reports));
        return 1;
      }
      const source = path.resolve(host.cwd, values.workflows as string);
      const names = new Set(set.specs.map((s) => s.spec.name));
      // Regression tests of the exported workflows travel with them (the bundle's npm test runs them).
      const tests: Record<string, string> = {};
      for (const file of testFilesIn(source)) {
        const text = readFileSync(file, 'utf8');
        let entries: Array<{ workflow?: unknown }> = [];
        try {
          entries = ([] as Array<{ workflow?: unknown }>).concat(JSON.parse(text) as never);
        } catch {
          /* an unreadable test file stays behind; `tessera test` reports it */
        }
        if (entries.some((t) => names.has(String(t?.workflow)))) tests[`workflows/${path.basename(file)}`] = text;
      }
      const bundle = buildBundle(
        name,
        set.specs.map((s) => s.spec),
        host.version,
        port,
        tests,
      );
      for (const [rel, content] of Object.entries(bundle.files).sort()) {
        const file = path.join(out, rel);
        mkdirSync(path.dirname(file), { recursive: true });
        writeFileSync(file, content);
      }
      const inject = set.specs.filter((s) => s.inject).map((s) => s.spec.name);
      host.stdout(
        `Wrote ${Object.keys(bundle.files).length} files to ${values.out as string} (bundle ${name}, sha256 ${bundle.hash.slice(0, 12)}): ${set.specs.map((s) => s.spec.name).join(', ')}\n` +
          (inject.length > 0
            ? `Note: the inject functions of ${inject.join(', ')} are code and are not exported; the bundle uses the default (x-tenant-id).\n`
            : '') +
          `Start it with: cd ${values.out as string} && npm install && npm start\n`,
      );
      return 0;
    },
  },
]);
