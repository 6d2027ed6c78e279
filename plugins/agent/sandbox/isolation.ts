import { spawnSync } from 'node:child_process';
import { existsSync, statSync } from 'node:fs';
import path from 'node:path';

export type SandboxMode = 'bwrap' | 'unshare' | 'process';

/** What a mode isolates, as reported with every run (docs/agent-api.md explains each). */
export interface Isolation {
  mode: SandboxMode;
  /** `none`: a network namespace with only a down loopback; `host`: the service's network. */
  network: 'none' | 'host';
  /** `read-only-root`: everything read-only except the run's copy and a private /tmp; `uid-permissions`: what the run's uid may touch. */
  filesystem: 'read-only-root' | 'uid-permissions';
  /** The uid the tests run as (outside any user namespace). */
  uid: number;
  /** Whether other processes (the service's, with their environment) are hidden by a PID namespace. */
  pidNamespace: boolean;
}

const probes = new Map<string, boolean>();

function probe(key: string, argv: string[], uid?: number, gid?: number): boolean {
  let ok = probes.get(key);
  if (ok === undefined) {
    const r = spawnSync(argv[0]!, argv.slice(1), {
      stdio: 'ignore',
      timeout: 10_000,
      env: { PATH: '/usr/bin:/bin' },
      ...(uid !== undefined ? { uid, gid } : {}),
    });
    ok = r.status === 0;
    probes.set(key, ok);
  }
  return ok;
}

export const isRoot = () => typeof process.getuid === 'function' && process.getuid() === 0;

/** Whether bwrap runs here (installed, and user namespaces allowed for `uid`). */
export function bwrapWorks(uid?: number, gid?: number): boolean {
  return probe(
    `bwrap:${uid}`,
    ['bwrap', '--ro-bind', '/', '/', '--dev', '/dev', '--proc', '/proc', '--unshare-all', '--die-with-parent', '--', '/bin/true'],
    uid,
    gid,
  );
}

/** Whether `unshare` can make network, PID and mount namespaces (as root). */
export function unshareWorks(): boolean {
  return isRoot() && probe('unshare', ['unshare', '--net', '--pid', '--fork', '--mount-proc', '--', '/bin/true']);
}

/** The mode `auto` picks: bwrap, else unshare (as root), else a plain child process. */
export function chooseMode(wanted: 'auto' | SandboxMode, uid?: number, gid?: number): SandboxMode {
  if (wanted !== 'auto') return wanted;
  if (bwrapWorks(uid, gid)) return 'bwrap';
  if (unshareWorks()) return 'unshare';
  return 'process';
}

/** Whether a uid other than the owner could reach `p` (every ancestor searchable by others). */
export function reachableByOthers(p: string): boolean {
  let dir = path.resolve(p);
  if (!existsSync(dir)) return false;
  for (;;) {
    const parent = path.dirname(dir);
    if (parent === dir) return true;
    if ((statSync(parent).mode & 0o001) === 0) return false;
    dir = parent;
  }
}
