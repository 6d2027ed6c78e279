/**
 * CLI commands contributed by plugins. A built-in plugin adds commands with a `cli.ts` module beside
 * its `index.ts` that exports `commands` (a `CliCommand[]`); `runtime/cli.ts` finds those modules and
 * dispatches to them, so the runtime never imports a plugin's internals by name.
 */
import { existsSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

export interface CliOption {
  type: 'string' | 'boolean';
  short?: string;
  /** Shown in the help, as in `--port N`. */
  valueName?: string;
  description: string;
}

export interface CliArgs {
  values: Record<string, string | boolean | undefined>;
  positionals: string[];
}

/** What a command may ask of the runtime's CLI. */
export interface CliHost {
  /** The directory relative paths are resolved against. */
  cwd: string;
  /** The runtime's version (package.json). */
  version: string;
  stdout(text: string): void;
  stderr(text: string): void;
  /**
   * Serves manifest data built in code (validated like a manifest file; relative paths resolve against
   * `dir`) until SIGTERM or SIGINT, exactly as `tessera serve --manifest` does; resolves to the exit code.
   */
  serve(manifest: unknown, options: { dir: string; label: string; dataDir?: string }): Promise<number>;
}

export interface CliCommand {
  /** The command word (`validate`). A plugin command named `serve` extends the runtime's `serve`. */
  name: string;
  /** Positional arguments, as in `<file>`; shown in the help. */
  args?: string;
  summary: string;
  options: Record<string, CliOption>;
  /**
   * For a `serve` extension: the options that select it (`--workflows`). The runtime's own `serve`
   * runs when none of them is given.
   */
  selectedBy?: string[];
  /** How many positionals the command takes (default 0). */
  positionals?: { min: number; max: number };
  /** Resolves to the process exit code: 0 success, 1 failure, 2 bad usage. */
  run(args: CliArgs, host: CliHost): Promise<number>;
}

/** Identity, for type checking a plugin's `commands` export. */
export function defineCommands(commands: CliCommand[]): CliCommand[] {
  return commands;
}

const here = path.dirname(fileURLToPath(import.meta.url));
const builtinRoot = path.resolve(here, '../plugins');

/** The `cli` modules of the built-in plugins (cli.js in dist/, cli.ts in the source tree). */
function cliModules(): string[] {
  if (!existsSync(builtinRoot)) return [];
  const out: string[] = [];
  for (const d of readdirSync(builtinRoot, { withFileTypes: true })) {
    if (!d.isDirectory()) continue;
    const file = ['cli.js', 'cli.ts'].map((f) => path.join(builtinRoot, d.name, f)).find((f) => existsSync(f));
    if (file) out.push(file);
  }
  return out.sort();
}

/** Every command the built-in plugins contribute, in plugin-name order. */
export async function pluginCommands(): Promise<CliCommand[]> {
  const out: CliCommand[] = [];
  for (const file of cliModules()) {
    const mod = (await import(pathToFileURL(file).href)) as { commands?: CliCommand[] };
    for (const command of mod.commands ?? []) out.push(command);
  }
  return out;
}
