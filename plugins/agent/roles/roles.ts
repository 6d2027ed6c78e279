/** The specialised agents a ticket job runs as (docs/agent-api.md, "Specialised agents"). */
export const roleIds = ['backend-python', 'frontend-ui', 'frontier-architecture', 'security-auditor'] as const;
export type RoleId = (typeof roleIds)[number];

/**
 * What a role may use besides the model: `code-graph` (declarations, callers and callees of the
 * ticket's keywords), `tests` (the sandboxed test run), `syntax-check` (tree-sitter verification of
 * each diff, which every role has), `security-checks` (the review's deterministic secret and
 * dangerous-call checks on each diff: a high finding sends the diff back like a failed verification).
 */
export type RoleTool = 'code-graph' | 'tests' | 'syntax-check' | 'security-checks';

export interface Role {
  id: RoleId | 'triage';
  title: string;
  /** The system prompt's role paragraph. */
  instructions: string;
  /** The tier of each patching iteration: iteration n uses `tiers[min(n, length) - 1]` (escalation). */
  tiers: readonly number[];
  tools: readonly RoleTool[];
}

const diffRules = [
  'Answer with exactly one unified diff in a ```diff fenced block and nothing after it.',
  'Paths are relative to the repository root with a/ and b/ prefixes (git diff style); new files come from /dev/null.',
  'Context and removed lines must match the files shown exactly (no fuzz is allowed), with at least 3 lines of context where the file has them.',
  'Change only what the ticket needs; keep the existing style; never touch tests to make them pass unless the ticket asks for it.',
].join('\n');

export const triageRole: Role = {
  id: 'triage',
  title: 'Triage and clarity',
  instructions: [
    'You are the triage and clarity agent of a code-remediation service.',
    'Decide whether the ticket is actionable as written: a competent engineer could change the code without asking anything.',
    'When it is ambiguous (the expected behaviour, the scope or the place to change admits several readings), ask at most 3 multiple-choice questions instead of guessing.',
    'Pick the specialised agent for the work: backend-python, frontend-ui, frontier-architecture or security-auditor.',
    'Answer with one JSON object and nothing else:',
    '{"actionable": boolean, "summary": string, "role": string, "files": [repository paths likely involved],',
    ' "questions": [{"id": string, "question": string, "choices": [{"id": string, "label": string}], "allowFreeText": boolean}]}',
    '`questions` is empty when actionable is true.',
  ].join('\n'),
  tiers: [3],
  tools: ['code-graph'],
};

export const roles: Readonly<Record<RoleId, Role>> = {
  'backend-python': {
    id: 'backend-python',
    title: 'Backend Python engineer',
    instructions: [
      'You are a senior backend Python engineer fixing a ticket in this repository.',
      'Read the failing behaviour from the ticket and the test output, fix the root cause in the library code, keep public signatures stable, and keep the code typed where it already is.',
      diffRules,
    ].join('\n'),
    tiers: [3, 3, 6, 7],
    tools: ['code-graph', 'tests', 'syntax-check'],
  },
  'frontend-ui': {
    id: 'frontend-ui',
    title: 'Frontend UI engineer',
    instructions: [
      'You are a senior frontend engineer (TypeScript, JavaScript, HTML, CSS) fixing a ticket in this repository.',
      'Keep components accessible (labels, roles, keyboard use), keep the existing module system, and prefer small pure functions the tests can reach.',
      diffRules,
    ].join('\n'),
    tiers: [3, 4, 6, 7],
    tools: ['code-graph', 'tests', 'syntax-check'],
  },
  'frontier-architecture': {
    id: 'frontier-architecture',
    title: 'Frontier architect',
    instructions: [
      'You are the architect for changes that cross modules: refactors, concurrency, data flow, interfaces between packages.',
      'Follow the callers and callees shown to keep every call site consistent, change interfaces and their users in the same diff, and keep the change as small as the design allows.',
      diffRules,
    ].join('\n'),
    tiers: [6, 8, 9],
    tools: ['code-graph', 'tests', 'syntax-check'],
  },
  'security-auditor': {
    id: 'security-auditor',
    title: 'Security auditor',
    instructions: [
      'You are a security auditor fixing a vulnerability: injection, unsafe deserialisation, secrets in code, missing validation, unsafe shell or eval use.',
      'Fix the vulnerable path and every caller that reaches it, validate at the boundary, never add secrets, eval, exec, shell=True or disabled TLS checks: such a diff is refused by the security checks and sent back.',
      diffRules,
    ].join('\n'),
    tiers: [6, 7, 8],
    tools: ['code-graph', 'tests', 'syntax-check', 'security-checks'],
  },
};

export function isRoleId(value: unknown): value is RoleId {
  return typeof value === 'string' && (roleIds as readonly string[]).includes(value);
}

/** The tier of patching iteration `n` (1-based) for a role; `startTier` shifts the role's ladder so it starts there. */
export function tierOf(role: Role, n: number, startTier?: number): number {
  const ladder = role.tiers;
  const tier = ladder[Math.min(n, ladder.length) - 1]!;
  if (startTier === undefined) return tier;
  return Math.min(10, Math.max(1, tier - ladder[0]! + startTier));
}

const security =
  /\b(security|vulnerab\w*|injection|xss|csrf|ssrf|cve-\d+|secret|credential|password|token leak|sanitiz\w*|escap(e|ing)|unsafe|exploit|rce|eval|pickle|deserializ\w*|auth(entication|orization)?)\b/i;
const architecture =
  /\b(architecture|refactor\w*|redesign|migrat\w*|concurren\w*|race condition|deadlock|thread\w*|async(hronous)?|interface|across (the )?(modules|services|packages)|decouple|scalab\w*)\b/i;
const frontendExt = /\.(tsx?|jsx?|mjs|cjs|vue|svelte|css|scss|html)$/i;
const pythonExt = /\.pyi?$/i;

/**
 * The role a ticket needs when the triage model names none (or names one that does not exist):
 * security wording or a `security` label first, then architecture wording, then the language most
 * of the involved files are in (Python: backend; TypeScript, JavaScript, CSS, HTML: frontend).
 */
export function chooseRole(ticket: { title: string; description: string; labels?: string[] | undefined }, files: string[]): RoleId {
  const text = `${ticket.title}\n${ticket.description}\n${(ticket.labels ?? []).join(' ')}`;
  if (security.test(text)) return 'security-auditor';
  if (architecture.test(text)) return 'frontier-architecture';
  const py = files.filter((f) => pythonExt.test(f)).length;
  const fe = files.filter((f) => frontendExt.test(f)).length;
  if (fe > py) return 'frontend-ui';
  if (py > 0) return 'backend-python';
  return /\b(ui|css|button|page|component|frontend|browser|react|html)\b/i.test(text) ? 'frontend-ui' : 'backend-python';
}
