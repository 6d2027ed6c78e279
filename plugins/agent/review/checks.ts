import { parsePatch, type StructuredPatch } from 'diff';
import { languageOf } from '../code/languages.js';
import { repoPath, verifyPatch, type TreeReader } from '../patches/verify.js';

export type Severity = 'high' | 'medium' | 'low' | 'info';
export type Category = 'security' | 'correctness' | 'tests' | 'style';

export interface Finding {
  file: string | null;
  line: number | null;
  severity: Severity;
  category: Category;
  /** The check that found it (`secret.aws-access-key`, `dangerous.eval`, `syntax`, `tests.untouched`, ...). */
  rule: string;
  message: string;
}

const secretRules: Array<[string, RegExp, string]> = [
  ['secret.private-key', /-----BEGIN (?:RSA |EC |DSA |OPENSSH |PGP )?PRIVATE KEY( BLOCK)?-----/, 'a private key'],
  ['secret.aws-access-key', /\b(?:AKIA|ASIA)[0-9A-Z]{16}\b/, 'an AWS access key id'],
  ['secret.github-token', /\b(?:gh[pousr]_[A-Za-z0-9]{36,}|github_pat_[A-Za-z0-9_]{50,})\b/, 'a GitHub token'],
  ['secret.slack-token', /\bxox[abprs]-[A-Za-z0-9-]{10,}\b/, 'a Slack token'],
  ['secret.openai-key', /\bsk-(?:proj-)?[A-Za-z0-9_-]{20,}\b/, 'an OpenAI-style API key'],
  ['secret.assignment', /\b(?:api[_-]?key|secret|passw(?:or)?d|token|auth)\w*\s*[:=]\s*['"][^'"\s$]{12,}['"]/i, 'a hard-coded credential'],
];

const dangerRules: Array<[string, RegExp, string, Severity, string[]]> = [
  ['dangerous.eval', /(?<![\w.])eval\s*\(/, 'eval() runs arbitrary code', 'high', ['python', 'javascript', 'typescript', 'tsx']],
  ['dangerous.exec', /(?<![\w.])exec\s*\(/, 'exec() runs arbitrary code', 'high', ['python']],
  ['dangerous.new-function', /\bnew\s+Function\s*\(/, 'new Function() compiles arbitrary code', 'high', ['javascript', 'typescript', 'tsx']],
  ['dangerous.os-system', /\bos\.(?:system|popen)\s*\(/, 'os.system/os.popen run a shell command', 'high', ['python']],
  ['dangerous.shell-true', /\bshell\s*=\s*True\b/, 'subprocess with shell=True', 'high', ['python']],
  ['dangerous.pickle', /\b(?:pickle|cPickle|marshal)\.loads?\s*\(/, 'unpickling untrusted data runs code', 'medium', ['python']],
  ['dangerous.yaml-load', /\byaml\.load\s*\((?![^)]*SafeLoader)/, 'yaml.load without SafeLoader', 'medium', ['python']],
  [
    'dangerous.child-process-exec',
    /\b(?:child_process\.)?exec(?:Sync)?\s*\(\s*[`'"][^`'"]*\$\{|\bchild_process\.exec(?:Sync)?\s*\(/,
    'a shell command from child_process.exec',
    'medium',
    ['javascript', 'typescript', 'tsx'],
  ],
  ['dangerous.inner-html', /\.innerHTML\s*=|dangerouslySetInnerHTML/, 'HTML injected without escaping', 'medium', ['javascript', 'typescript', 'tsx']],
  [
    'dangerous.tls-off',
    /\bverify\s*=\s*False\b|rejectUnauthorized\s*:\s*false|NODE_TLS_REJECT_UNAUTHORIZED/,
    'TLS certificate checks turned off',
    'medium',
    ['python', 'javascript', 'typescript', 'tsx'],
  ],
];

const testPath = /(^|\/)(tests?|__tests__|spec|specs)\/|(^|\/)test_[^/]+\.py$|_test\.(py|go)$|\.(test|spec)\.[cm]?[jt]sx?$/;

/** The added lines of a file patch with their line numbers in the new file. */
function addedLines(p: StructuredPatch): Array<{ line: number; text: string }> {
  const out: Array<{ line: number; text: string }> = [];
  for (const h of p.hunks) {
    let n = h.newStart;
    for (const l of h.lines) {
      if (l.startsWith('+')) out.push({ line: n++, text: l.slice(1) });
      else if (l.startsWith(' ')) n++;
    }
  }
  return out;
}

/**
 * The review's deterministic checks on a unified diff: secrets and dangerous calls in added lines,
 * new tree-sitter syntax errors in touched files (when the base tree is given), and whether tests
 * changed with the code.
 */
export async function deterministicChecks(diff: string, read?: TreeReader): Promise<{ findings: Finding[]; files: string[] }> {
  const findings: Finding[] = [];
  let patches: StructuredPatch[];
  try {
    patches = parsePatch(diff);
  } catch (err) {
    return {
      findings: [
        {
          file: null,
          line: null,
          severity: 'high',
          category: 'correctness',
          rule: 'diff.malformed',
          message: `the diff does not parse: ${(err as Error).message}`,
        },
      ],
      files: [],
    };
  }
  const files: string[] = [];
  for (const p of patches) {
    const name = p.newFileName === '/dev/null' ? p.oldFileName : p.newFileName;
    const r = repoPath(name, /^[ab]\//.test(name ?? ''));
    const file = 'path' in r && r.path ? r.path : (name ?? null);
    if (file) files.push(file);
    const language = file ? languageOf(file)?.name : undefined;
    for (const { line, text } of addedLines(p)) {
      for (const [rule, re, what] of secretRules) {
        if (re.test(text)) findings.push({ file, line, severity: 'high', category: 'security', rule, message: `${what} is added in the diff` });
      }
      const code = text.replace(/#.*$|\/\/.*$/, '');
      for (const [rule, re, what, severity, languages] of dangerRules) {
        if (language && languages.includes(language) && re.test(code)) findings.push({ file, line, severity, category: 'security', rule, message: what });
      }
    }
  }
  if (read) {
    const v = await verifyPatch(diff, read);
    for (const problem of v.problems) {
      const syntax = problem.reason === 'syntax_errors';
      const line = syntax ? Number(/at (\d+):/.exec(problem.message)?.[1] ?? NaN) : NaN;
      findings.push({
        file: problem.file,
        line: Number.isFinite(line) ? line : null,
        severity: 'high',
        category: 'correctness',
        rule: syntax ? 'syntax' : `diff.${problem.reason}`,
        message: problem.message,
      });
    }
  }
  const code = files.filter((f) => !testPath.test(f) && languageOf(f)?.grammar);
  const tests = files.filter((f) => testPath.test(f));
  if (code.length > 0 && tests.length === 0) {
    findings.push({
      file: null,
      line: null,
      severity: 'low',
      category: 'tests',
      rule: 'tests.untouched',
      message: `${code.length} source file(s) changed and no test did`,
    });
  }
  return { findings, files };
}

const weight: Record<Severity, number> = { high: 30, medium: 15, low: 5, info: 0 };

/** `request_changes` on any high finding, `comment` on a medium one, else `approve`; score 100 minus the findings' weights. */
export function verdictOf(findings: Finding[]): { verdict: 'approve' | 'request_changes' | 'comment'; score: number } {
  const score = Math.max(0, 100 - findings.reduce((n, f) => n + weight[f.severity], 0));
  if (findings.some((f) => f.severity === 'high')) return { verdict: 'request_changes', score };
  if (findings.some((f) => f.severity === 'medium')) return { verdict: 'comment', score };
  return { verdict: 'approve', score };
}
