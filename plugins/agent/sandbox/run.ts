import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { cpSync, existsSync, lchownSync, mkdirSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { mkdirMode, segment } from '../repos/workspaces.js';
import { detectTestCommand, type TestCommand } from './detect.js';
import { chooseMode, isRoot, reachableByOthers, type Isolation, type SandboxMode } from './isolation.js';
import { copyTsLoader, tsLoader, type TsLoader } from './ts-loader.js';

export interface SandboxConfig {
  mode: 'auto' | SandboxMode;
  /** Where run directories are made (`<dir>/<tenant>/<user>/run-<hex>`). */
  dir: string;
  timeoutMs: number;
  memoryMb: number;
  maxProcesses: number;
  maxOutputBytes: number;
  maxFileMb: number;
  uid: number;
  gid: number;
  /** Paths the tests must not see (data directory, key file, workspaces, the service's home, ...). */
  hide: string[];
}

export interface TestRun {
  ok: boolean;
  runner: TestCommand['runner'] | null;
  command: string[];
  exitCode: number | null;
  signal: string | null;
  /** Set when the tests are TypeScript and ran with Tessera's loader (`node --import <loader> --test`; `command` shows `node --test`). */
  typescript?: true;
  /** The limit that ended the run, if one did. */
  limit: 'time' | 'output' | null;
  output: string;
  outputTruncated: boolean;
  durationMs: number;
  isolation: Isolation;
}

const PATH = '/usr/local/bin:/usr/bin:/bin';

function chownTree(dir: string, uid: number, gid: number): void {
  lchownSync(dir, uid, gid);
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    const p = path.join(dir, e.name);
    if (e.isDirectory()) chownTree(p, uid, gid);
    else lchownSync(p, uid, gid);
  }
}

/**
 * Runs a repository's tests in an ephemeral copy (mode 0700, owned by the run's uid) with time,
 * memory, process, file-size and output limits, a clean environment, and the strongest isolation
 * the machine offers (see `Isolation`). The copy is removed afterwards.
 */
export class Sandbox {
  constructor(private readonly cfg: SandboxConfig) {}

  /** Whether runs drop to `uid` (only possible when the service runs as root). */
  get dropsUid(): boolean {
    return isRoot();
  }

  mode(): SandboxMode {
    return chooseMode(this.cfg.mode, this.dropsUid ? this.cfg.uid : undefined, this.dropsUid ? this.cfg.gid : undefined);
  }

  isolation(mode = this.mode()): Isolation {
    return {
      mode,
      network: mode === 'process' ? 'host' : 'none',
      filesystem: mode === 'bwrap' ? 'read-only-root' : 'uid-permissions',
      uid: this.dropsUid ? this.cfg.uid : (process.getuid?.() ?? -1),
      pidNamespace: mode !== 'process',
    };
  }

  /**
   * Copies `source` (without `.git`), overlays `files` (`null` deletes), and runs `command` or the
   * detected test command in the copy.
   */
  async run(o: {
    tenant: string;
    user: string;
    source: string;
    files?: Map<string, string | null>;
    command?: string[];
    signal?: AbortSignal;
  }): Promise<TestRun> {
    const { cfg } = this;
    mkdirMode(cfg.dir, 0o711);
    if (this.dropsUid && !reachableByOthers(cfg.dir)) {
      throw new Error(`sandbox directory ${cfg.dir} is not reachable by uid ${cfg.uid}: every parent directory must be searchable by others (o+x)`);
    }
    const userDir = path.join(cfg.dir, segment(o.tenant), segment(o.user));
    mkdirMode(path.dirname(userDir), 0o711);
    mkdirMode(userDir, 0o711);
    const runDir = path.join(userDir, `run-${randomBytes(12).toString('hex')}`);
    mkdirSync(runDir, { mode: 0o700 });
    const repo = path.join(runDir, 'repo');
    try {
      cpSync(o.source, repo, { recursive: true, filter: (src) => path.basename(src) !== '.git' || path.dirname(src) !== o.source });
      for (const [file, text] of o.files ?? []) {
        const target = path.join(repo, file);
        if (text === null) rmSync(target, { force: true });
        else {
          mkdirSync(path.dirname(target), { recursive: true });
          writeFileSync(target, text);
        }
      }
      mkdirSync(path.join(runDir, 'tmp'), { mode: 0o700 });
      const detected: TestCommand | undefined = o.command ? { runner: 'configured' as const, argv: o.command } : detectTestCommand(repo);
      const loader = detected?.typescript ? this.loader(runDir) : undefined;
      if (this.dropsUid) chownTree(runDir, cfg.uid, cfg.gid);
      const mode = this.mode();
      const isolation = this.isolation(mode);
      if (!detected) {
        return {
          ok: false,
          runner: null,
          command: [],
          exitCode: null,
          signal: null,
          limit: null,
          output: 'no test command was detected',
          outputTruncated: false,
          durationMs: 0,
          isolation,
        };
      }
      return await this.exec(mode, isolation, runDir, repo, detected, o.signal, loader);
    } finally {
      rmSync(runDir, { recursive: true, force: true });
    }
  }

  /**
   * Tessera's TypeScript loader for a run: the installed one, unless the run drops to a uid that
   * cannot reach it (a parent folder closed to others), then a copy inside the run's folder.
   */
  private loader(runDir: string): TsLoader {
    const installed = tsLoader();
    if (this.dropsUid && !(reachableByOthers(installed.dir) && reachableByOthers(installed.amaro))) return copyTsLoader(path.join(runDir, 'ts-loader'));
    return installed;
  }

  private argv(mode: SandboxMode, runDir: string, repo: string, command: string[], loader?: TsLoader): string[] {
    const { cfg } = this;
    const env: Record<string, string> = {
      PATH,
      HOME: runDir,
      TMPDIR: path.join(runDir, 'tmp'),
      LANG: 'C.UTF-8',
      CI: 'true',
      NO_COLOR: '1',
      PYTHONDONTWRITEBYTECODE: '1',
    };
    const limits = [`--data=${cfg.memoryMb * 1024 * 1024}`, `--fsize=${cfg.maxFileMb * 1024 * 1024}`, '--core=0', '--nofile=1024'];
    if (this.dropsUid) limits.push(`--nproc=${cfg.maxProcesses}`);
    const prlimit = ['prlimit', ...limits, '--'];
    if (mode === 'bwrap') {
      const masks: string[] = [];
      for (const hidden of cfg.hide) {
        if (!existsSync(hidden) || (this.dropsUid && !reachableByOthers(hidden))) continue;
        if (runDir.startsWith(hidden + path.sep) && hidden !== cfg.dir) continue;
        masks.push(...(statSync(hidden).isDirectory() ? ['--tmpfs', hidden] : ['--ro-bind', '/dev/null', hidden]));
      }
      const setenv = Object.entries(env).flatMap(([k, v]) => ['--setenv', k, v]);
      return [
        ...prlimit,
        'bwrap',
        '--ro-bind', '/', '/',
        '--dev', '/dev',
        '--proc', '/proc',
        '--tmpfs', '/tmp',
        ...masks,
        '--bind', runDir, runDir,
        // The TypeScript loader, read-only, at its own path (also where a mask above hid it).
        ...(loader ? ['--ro-bind', loader.dir, loader.dir, '--ro-bind', loader.amaro, loader.amaro] : []),
        '--chdir', repo,
        '--unshare-all',
        '--die-with-parent',
        '--new-session',
        '--cap-drop', 'ALL',
        '--clearenv',
        ...setenv,
        '--',
        ...command,
      ]; // prettier-ignore
    }
    if (mode === 'unshare') {
      const drop = this.dropsUid ? ['setpriv', `--reuid=${cfg.uid}`, `--regid=${cfg.gid}`, '--clear-groups', '--no-new-privs', '--'] : [];
      return ['unshare', '--net', '--pid', '--fork', '--mount-proc', '--ipc', '--uts', '--kill-child', '--', ...prlimit, ...drop, ...command];
    }
    return [...prlimit, ...command];
  }

  private exec(
    mode: SandboxMode,
    isolation: Isolation,
    runDir: string,
    repo: string,
    cmd: TestCommand,
    signal?: AbortSignal,
    loader?: TsLoader,
  ): Promise<TestRun> {
    const { cfg } = this;
    // The loader goes on the command line that runs; the run reports the repository's command
    // (`node --test <files>`), not a path of the service's installation (it ends up in PR bodies).
    const argv = this.argv(mode, runDir, repo, withLoader(cmd, loader).argv, loader);
    const env = { PATH, HOME: runDir, TMPDIR: path.join(runDir, 'tmp'), LANG: 'C.UTF-8', CI: 'true', NO_COLOR: '1', PYTHONDONTWRITEBYTECODE: '1' };
    // bwrap and unshare start as the service (they need to); a plain process starts as the run's uid.
    const asUid = this.dropsUid && mode !== 'unshare' ? { uid: cfg.uid, gid: cfg.gid } : {};
    const started = Date.now();
    return new Promise((resolve) => {
      const child = spawn(argv[0]!, argv.slice(1), { cwd: repo, env, detached: true, stdio: ['ignore', 'pipe', 'pipe'], ...asUid });
      const chunks: Buffer[] = [];
      let bytes = 0;
      let truncated = false;
      let limit: TestRun['limit'] = null;
      const kill = () => {
        try {
          if (child.pid) process.kill(-child.pid, 'SIGKILL');
        } catch {
          child.kill('SIGKILL');
        }
      };
      const collect = (d: Buffer) => {
        if (bytes >= cfg.maxOutputBytes) return;
        const room = cfg.maxOutputBytes - bytes;
        chunks.push(d.length > room ? d.subarray(0, room) : d);
        bytes += Math.min(d.length, room);
        if (d.length > room) {
          truncated = true;
          limit ??= 'output';
          kill();
        }
      };
      child.stdout.on('data', collect);
      child.stderr.on('data', collect);
      const timer = setTimeout(() => {
        limit ??= 'time';
        kill();
      }, cfg.timeoutMs);
      const onAbort = () => kill();
      signal?.addEventListener('abort', onAbort, { once: true });
      const finish = (exitCode: number | null, sig: string | null, extra = '') => {
        clearTimeout(timer);
        signal?.removeEventListener('abort', onAbort);
        resolve({
          ok: exitCode === 0 && limit === null,
          runner: cmd.runner,
          command: cmd.argv,
          ...(cmd.typescript ? { typescript: true as const } : {}),
          exitCode,
          signal: sig,
          limit,
          output: Buffer.concat(chunks).toString('utf8') + extra,
          outputTruncated: truncated,
          durationMs: Date.now() - started,
          isolation,
        });
      };
      child.on('error', (err) => finish(null, null, `\n${err.message}`));
      child.on('close', (code, sig) => finish(code, sig));
    });
  }
}

/** A TypeScript test command with the loader: `node --import <register.mjs> --test <files>`. */
function withLoader(cmd: TestCommand, loader: TsLoader | undefined): TestCommand {
  if (!loader || cmd.argv[0] !== 'node') return cmd;
  return { ...cmd, argv: ['node', '--import', loader.register, ...cmd.argv.slice(1)] };
}

/** The directories and files a sandboxed run must not see, from the service's own paths. */
export function hiddenPaths(o: { dataDir: string; keyFile: string; workspaces: string; sandbox: string; extra: string[] }): string[] {
  const home = os.homedir();
  return [...new Set([o.dataDir, o.keyFile, o.workspaces, o.sandbox, ...(home && home !== '/' ? [home] : []), ...o.extra].map((p) => path.resolve(p)))];
}
