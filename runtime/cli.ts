import 'reflect-metadata';
import { parseArgs, type ParseArgsConfig } from 'node:util';
import { App } from './app.js';
import { pluginCommands, type CliArgs, type CliCommand, type CliHost, type CliOption } from './cli-commands.js';
import { isTesseraError } from './errors.js';
import { createLogger } from './logger.js';
import { loadManifest, resolveManifest, type ResolvedManifest } from './manifest.js';
import { pluginCommand } from './plugin-command.js';
import { pluginFrameOf } from './plugin-frame.js';
import { runtimeVersion } from './version.js';

const globalOptions: Record<string, CliOption> = {
  help: { type: 'boolean', short: 'h', description: 'Show this help' },
  version: { type: 'boolean', short: 'v', description: 'Print the version' },
};

/** The runtime's own command: serve a manifest file. Plugins may extend it (`serve --workflows`). */
const serveCommand: CliCommand = {
  name: 'serve',
  summary: "Serve a manifest's listeners until SIGTERM or SIGINT",
  options: {
    manifest: { type: 'string', valueName: 'FILE', description: 'Manifest to serve (default: manifests/default.json)' },
    'data-dir': { type: 'string', valueName: 'DIR', description: "Store directory; overrides the manifest's dataDir" },
  },
  run: async ({ values }) => {
    const log = createLogger();
    let manifest: ResolvedManifest;
    try {
      manifest = loadManifest((values.manifest as string | undefined) ?? 'manifests/default.json', { dataDir: values['data-dir'] as string | undefined });
    } catch (err) {
      reportFatal(log, err);
      return 1;
    }
    return serveManifest(manifest, log);
  },
};

const pad = (s: string, n: number): string => (s.length >= n ? `${s}  ` : s.padEnd(n));
const optionLine = (name: string, o: CliOption): string =>
  `  ${pad(`${o.short ? `-${o.short}, ` : ''}--${name}${o.valueName ? ` ${o.valueName}` : ''}`, 22)}${o.description}`;

/** The help text: every command, the runtime's and the plugins', with its options. */
export function usageOf(commands: readonly CliCommand[]): string {
  const lines = ['Usage: tessera <command> [options]', '', 'Commands:'];
  for (const c of commands) lines.push(`  ${pad(`${c.name}${c.selectedBy ? ` --${c.selectedBy[0]}` : ''}${c.args ? ` ${c.args}` : ''}`, 22)}${c.summary}`);
  lines.push(`  ${pad('plugin new <dir>', 22)}Create a plugin package (tessera plugin new --help)`);
  for (const c of commands) {
    const entries = Object.entries(c.options);
    if (entries.length === 0) continue;
    lines.push('', `Options for ${c.name}${c.selectedBy ? ` --${c.selectedBy[0]}` : ''}:`);
    for (const [name, o] of entries) lines.push(optionLine(name, o));
  }
  lines.push('', 'Global options:');
  for (const [name, o] of Object.entries(globalOptions)) lines.push(optionLine(name, o));
  lines.push(
    '',
    'Environment:',
    '  TESSERA_LOG_LEVEL     trace, debug, info (default), warn, error, fatal or silent',
    '',
    'Exit codes: 0 success (serve: a clean stop), 1 failure (an invalid workflow, a failing test,',
    'a start-up or runtime failure), 2 bad usage.',
  );
  return lines.join('\n');
}

/** Parse argv and run; resolves to the process exit code (serve resolves only when it stops). */
export async function main(argv: string[]): Promise<number> {
  if (argv[0] === 'plugin') return pluginCommand(argv.slice(1));
  const commands = [serveCommand, ...(await pluginCommands())];
  const usage = usageOf(commands);
  const host: CliHost = {
    cwd: process.cwd(),
    version: runtimeVersion,
    stdout: (text) => process.stdout.write(text),
    stderr: (text) => process.stderr.write(text),
    serve: async (data, options) => {
      const log = createLogger();
      let manifest: ResolvedManifest;
      try {
        manifest = resolveManifest(data, { file: options.label, dir: options.dir, dataDir: options.dataDir });
      } catch (err) {
        reportFatal(log, err);
        return 1;
      }
      return serveManifest(manifest, log);
    },
  };
  const fail = (message: string): number => {
    process.stderr.write(`tessera: ${message}\n\n${usage}\n`);
    return 2;
  };

  // First pass, lenient: find the command word (options may come before or after it).
  const every: Record<string, CliOption> = { ...globalOptions };
  for (const c of commands) Object.assign(every, c.options);
  const loose = parseArgs({ args: argv, allowPositionals: true, strict: false, options: toParseArgs(every) });
  if (loose.values.version === true) {
    process.stdout.write(`${runtimeVersion}\n`);
    return 0;
  }
  if (loose.values.help === true) {
    process.stdout.write(`${usage}\n`);
    return 0;
  }
  const name = loose.positionals[0];
  if (name === undefined) return fail('no command given');
  const candidates = commands.filter((c) => c.name === name);
  if (candidates.length === 0) return fail(`unknown command "${loose.positionals.join(' ')}"`);

  // Second pass, strict, with the options of the command (and of its extensions).
  const options: Record<string, CliOption> = {};
  for (const c of candidates) Object.assign(options, c.options);
  Object.assign(options, globalOptions);
  let args: CliArgs;
  try {
    const parsed = parseArgs({ args: argv, allowPositionals: true, strict: true, options: toParseArgs(options) });
    args = { values: parsed.values as CliArgs['values'], positionals: parsed.positionals.slice(1) };
  } catch (err) {
    return fail(usageError(err as NodeJS.ErrnoException, options));
  }
  const given = (o: string): boolean => args.values[o] !== undefined;
  const selected = candidates.filter((c) => c.selectedBy?.some(given));
  const base = candidates.find((c) => !c.selectedBy);
  if (selected.length > 1) return fail(`${selected.map((c) => `--${c.selectedBy![0]}`).join(' and ')} cannot be combined`);
  const command = selected[0] ?? base;
  if (!command) return fail(`"${name}" needs ${candidates.map((c) => `--${c.selectedBy![0]}`).join(' or ')}`);
  // An option that belongs to another variant of the command (serve --workflows vs serve --manifest).
  const foreign = Object.keys(args.values).find((o) => given(o) && !(o in command.options) && !(o in globalOptions));
  if (foreign) {
    const owner = candidates.find((c) => foreign in c.options)!;
    return fail(
      `--${foreign} is an option of "${owner.name}${owner.selectedBy ? ` --${owner.selectedBy[0]}` : ''}", not of "${command.name}${command.selectedBy ? ` --${command.selectedBy[0]}` : ''}"`,
    );
  }
  const { min, max } = command.positionals ?? { min: 0, max: 0 };
  if (args.positionals.length < min) return fail(`"${name}" needs ${command.args ?? 'an argument'}`);
  if (args.positionals.length > max) return fail(`unknown command "${loose.positionals.join(' ')}"`);
  return command.run(args, host);
}

function toParseArgs(options: Record<string, CliOption>): NonNullable<ParseArgsConfig['options']> {
  return Object.fromEntries(Object.entries(options).map(([k, o]) => [k, o.short ? { type: o.type, short: o.short } : { type: o.type }]));
}

async function serveManifest(manifest: ResolvedManifest, log: ReturnType<typeof createLogger>): Promise<number> {
  let app: App;
  try {
    app = await App.create(manifest, { logger: log });
    await app.start();
  } catch (err) {
    reportFatal(log, err);
    return 1;
  }

  return new Promise<number>((resolve) => {
    let stopping = false;
    const shutdown = (signal: string): void => {
      if (stopping) {
        log.warn({ signal }, 'second signal: exiting without waiting');
        log.flush();
        process.exit(1);
      }
      stopping = true;
      log.info({ signal }, 'shutting down');
      app.stop().then(
        () => {
          log.info('stopped');
          log.flush();
          resolve(0);
        },
        (err: unknown) => {
          log.error({ err }, 'shutdown failed');
          log.flush();
          resolve(1);
        },
      );
    };
    process.on('SIGTERM', () => shutdown('SIGTERM'));
    process.on('SIGINT', () => shutdown('SIGINT'));
  });
}

function reportFatal(log: ReturnType<typeof createLogger>, err: unknown): void {
  const code = isTesseraError(err) ? err.code : 'startup_failed';
  const message = err instanceof Error ? err.message : String(err);
  log.fatal({ err, code }, message);
  log.flush();
  // The log may go to a collector; the person at the terminal still needs the reason.
  process.stderr.write(`tessera: ${code}: ${message}\n`);
  const frame = pluginFrameOf(err);
  if (frame !== undefined) process.stderr.write(`  at ${frame}\n`);
}

/** parseArgs' own messages suggest `-- "--x` with an unbalanced quote; ours name the option and the ones that exist. */
function usageError(err: NodeJS.ErrnoException, options: Record<string, CliOption>): string {
  const option = /'([^']+)'/.exec(err.message)?.[1];
  const names = Object.keys(options).map((o) => `--${o}`);
  if (err.code === 'ERR_PARSE_ARGS_UNKNOWN_OPTION' && option) {
    return `Unknown option "${option}". Options are ${names.slice(0, -1).join(', ')} and ${names[names.length - 1]}.`;
  }
  if (err.code === 'ERR_PARSE_ARGS_INVALID_OPTION_VALUE' && option) {
    const name = option.split(' ')[0]!.replace(/^-[a-z], /, '');
    const o = options[name.replace(/^--/, '')];
    return `Option "${name}" needs a value, as in ${name} ${o?.valueName ?? 'VALUE'}.`;
  }
  return err.message;
}
