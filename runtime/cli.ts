import 'reflect-metadata';
import { parseArgs } from 'node:util';
import { App } from './app.js';
import { isTesseraError } from './errors.js';
import { createLogger } from './logger.js';
import { loadManifest } from './manifest.js';
import { pluginCommand } from './plugin-command.js';
import { pluginFrameOf } from './plugin-frame.js';
import { runtimeVersion } from './version.js';

export const usage = `Usage: tessera <command> [options]

Commands:
  serve                 Serve a manifest's listeners until SIGTERM or SIGINT
  plugin new <dir>      Create a plugin package (tessera plugin new --help)

Options for serve:
  --manifest FILE       Manifest to serve (default: manifests/default.json)
  --data-dir DIR        Store directory; overrides the manifest's dataDir

Global options:
  -h, --help            Show this help
  -v, --version         Print the version

Environment:
  TESSERA_LOG_LEVEL     trace, debug, info (default), warn, error, fatal or silent

Exit codes: 0 clean stop, 1 start-up or runtime failure, 2 bad usage.`;

/** Parse argv and run; resolves to the process exit code (serve resolves only when it stops). */
export async function main(argv: string[]): Promise<number> {
  if (argv[0] === 'plugin') return pluginCommand(argv.slice(1));
  let parsed;
  try {
    parsed = parseArgs({
      args: argv,
      allowPositionals: true,
      strict: true,
      options: {
        manifest: { type: 'string' },
        'data-dir': { type: 'string' },
        help: { type: 'boolean', short: 'h' },
        version: { type: 'boolean', short: 'v' },
      },
    });
  } catch (err) {
    process.stderr.write(`tessera: ${usageError(err as NodeJS.ErrnoException)}\n\n${usage}\n`);
    return 2;
  }
  const { values, positionals } = parsed;
  if (values.version) {
    process.stdout.write(`${runtimeVersion}\n`);
    return 0;
  }
  if (values.help) {
    process.stdout.write(`${usage}\n`);
    return 0;
  }
  const [command, ...rest] = positionals;
  if (command === undefined) {
    process.stderr.write(`tessera: no command given\n\n${usage}\n`);
    return 2;
  }
  if (command !== 'serve' || rest.length > 0) {
    process.stderr.write(`tessera: unknown command "${[command, ...rest].join(' ')}"\n\n${usage}\n`);
    return 2;
  }
  return serve(values.manifest ?? 'manifests/default.json', values['data-dir']);
}

async function serve(manifestFile: string, dataDir: string | undefined): Promise<number> {
  const log = createLogger();
  let app: App;
  try {
    const manifest = loadManifest(manifestFile, { dataDir });
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
function usageError(err: NodeJS.ErrnoException): string {
  const option = /'([^']+)'/.exec(err.message)?.[1];
  if (err.code === 'ERR_PARSE_ARGS_UNKNOWN_OPTION' && option) {
    return `Unknown option "${option}". Options are --manifest, --data-dir, --help and --version.`;
  }
  if (err.code === 'ERR_PARSE_ARGS_INVALID_OPTION_VALUE' && option) {
    return `Option "${option.split(' ')[0]}" needs a value, as in --manifest manifests/default.json.`;
  }
  return err.message;
}
