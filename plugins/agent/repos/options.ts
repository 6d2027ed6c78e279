import { z } from 'tessera-runtime/plugin';

/** Part 2's plugin options: where repositories come from, the forge, workspaces, the sandbox and the commit author. */
export const repoOptions = {
  /** Offline repositories: `owner/repo` is the local git repository `<reposRoot>/owner/repo`; its `origin` remote is where branches are pushed. Relative to the working directory. */
  reposRoot: z.string().min(1).optional(),
  /** A GitHub-compatible REST API (`GET /repos/{owner}/{repo}`, `POST /repos/{owner}/{repo}/pulls`, issue comments, merges). `token` or `tokenEnv` (the name of an environment variable holding it). */
  forge: z
    .strictObject({
      baseUrl: z.url({ protocol: /^https?$/ }),
      token: z.string().min(1).optional(),
      tokenEnv: z.string().min(1).optional(),
    })
    .refine((f) => !(f.token && f.tokenEnv), 'give token or tokenEnv, not both')
    .optional(),
  workspaces: z
    .strictObject({
      /** Where per-tenant-and-user clones live. @default "<dataDir>/../<dataDir name>-agent-workspaces" */
      dir: z.string().min(1).optional(),
      /** A workspace unused this long is removed. @default 72 */
      retentionHours: z
        .number()
        .min(0.001)
        .max(24 * 365)
        .default(72),
      /** A workspace fetches from its source at most this often. @default 30 */
      refreshSeconds: z.number().int().min(0).default(30),
    })
    .prefault({}),
  /** Author and committer of the commits the agent makes. */
  author: z
    .strictObject({
      /** @default "Tessera Agent" */
      name: z.string().min(1).max(200).default('Tessera Agent'),
      /** @default "agent@tessera.invalid" */
      email: z.string().min(3).max(200).default('agent@tessera.invalid'),
    })
    .prefault({}),
  sandbox: z
    .strictObject({
      /** `auto` takes bwrap, then unshare (as root), then a plain child process. @default "auto" */
      mode: z.enum(['auto', 'bwrap', 'unshare', 'process']).default('auto'),
      /** Where ephemeral run copies are made; must be searchable by the sandbox uid. @default "<os tmpdir>/tessera-agent-sandbox" */
      dir: z.string().min(1).optional(),
      /** Wall-clock limit of one test run. @default 120000 */
      timeoutMs: z.number().int().min(100).default(120_000),
      /** Writable data memory (RLIMIT_DATA) of every process. @default 1024 */
      memoryMb: z.number().int().min(16).default(1024),
      /** Processes and threads of the sandbox uid (RLIMIT_NPROC; only enforced for a uid other than root). @default 256 */
      maxProcesses: z.number().int().min(1).default(256),
      /** Bytes of stdout and stderr kept; the run is killed beyond. @default 1000000 */
      maxOutputBytes: z.number().int().min(1000).default(1_000_000),
      /** Largest file a test may write (RLIMIT_FSIZE). @default 100 */
      maxFileMb: z.number().int().min(1).default(100),
      /** The uid and gid a run drops to when the service runs as root. @default 65534 */
      uid: z.number().int().min(1).default(65534),
      gid: z.number().int().min(1).default(65534),
      /** Paths hidden from sandboxed runs besides the data directory, the key file, workspaces and the service's home. */
      hidePaths: z.array(z.string().min(1)).default([]),
    })
    .prefault({}),
};
