import picomatch from 'picomatch';
import type { PlaybookConfig } from './config.js';

/** What auto-merge looks at: the `ticket.proposed` event, the ticket's labels and the review's verdict. */
export interface Proposal {
  testsPassed: boolean;
  files: string[];
  additions: number;
  deletions: number;
  labels: string[];
  /** The review's verdict, or null when the review could not run. */
  verdict: 'approve' | 'request_changes' | 'comment' | null;
}

export type Criterion = 'tests_passed' | 'review_verdict' | 'diff_size' | 'file_count' | 'protected_path' | 'required_labels';

export interface Blocker {
  criterion: Criterion;
  message: string;
}

/**
 * Every auto-merge criterion the proposal fails (empty: merge). All are reported, not only the
 * first, so the comment tells the reviewer everything that kept the pull request from merging.
 */
export function mergeBlockers(rules: PlaybookConfig['autoMerge'], p: Proposal): Blocker[] {
  const out: Blocker[] = [];
  if (rules.requireTestsPassed && !p.testsPassed) out.push({ criterion: 'tests_passed', message: "the repository's tests did not pass" });
  if (rules.requireApproval && p.verdict !== 'approve') {
    out.push({
      criterion: 'review_verdict',
      message: p.verdict === null ? 'the review could not run' : `the review's verdict is "${p.verdict}", not "approve"`,
    });
  }
  const changed = p.additions + p.deletions;
  if (changed > rules.maxChangedLines) out.push({ criterion: 'diff_size', message: `${changed} changed lines exceed the limit of ${rules.maxChangedLines}` });
  if (p.files.length > rules.maxFiles) out.push({ criterion: 'file_count', message: `${p.files.length} changed files exceed the limit of ${rules.maxFiles}` });
  for (const file of p.files) {
    const glob = rules.protectedPaths.find((g) => picomatch.isMatch(file, g, { dot: true }));
    if (glob) out.push({ criterion: 'protected_path', message: `\`${file}\` is a protected path (\`${glob}\`) and is never merged automatically` });
  }
  const have = new Set(p.labels.map((l) => l.toLowerCase()));
  const missing = rules.requiredLabels.filter((l) => !have.has(l.toLowerCase()));
  if (missing.length > 0) out.push({ criterion: 'required_labels', message: `the ticket lacks the required label(s) ${missing.join(', ')}` });
  return out;
}
