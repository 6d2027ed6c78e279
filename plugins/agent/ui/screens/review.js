import { html, useState } from '../lib/preact.js';
import { request } from '../lib/api.js';
import { Badge, Button, Checkbox, ErrorBox, Input, Page, Select, Table, TextArea } from '../lib/components.js';
import { DiffView } from '../lib/diff-view.js';

const verdictKind = { approve: 'good', comment: 'warn', request_changes: 'bad' };
const verdictText = { approve: 'Approve', comment: 'Comment', request_changes: 'Request changes' };
const severityKind = { high: 'bad', medium: 'warn', low: 'info' };
const repoPattern = /^[A-Za-z0-9._-]{1,100}\/[A-Za-z0-9._-]{1,100}$/;

/**
 * Review: `POST /api/v1/playbooks/review-pr` on a pasted diff or a pull request's number; the
 * verdict, score and findings, and for a pasted diff the findings placed on the diff side by side.
 */
export default function Review() {
  const [repo, setRepo] = useState('');
  const [source, setSource] = useState('diff');
  const [diff, setDiff] = useState('');
  const [pull, setPull] = useState('');
  const [baseBranch, setBaseBranch] = useState('');
  const [post, setPost] = useState(false);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState(null);
  const [result, setResult] = useState(null);
  const repoError = repo && !repoPattern.test(repo) ? 'owner/repo, e.g. acme/widget.' : undefined;
  const pullError = pull && !(Number.isInteger(Number(pull)) && Number(pull) >= 1) ? 'A pull request number, 1 or more.' : undefined;
  const ready = repo && !repoError && (source === 'diff' ? diff.trim() !== '' : pull !== '' && !pullError);
  const submit = async (e) => {
    e.preventDefault();
    setBusy(true);
    setError(null);
    setResult(null);
    const body = source === 'diff' ? { repo, diff, ...(baseBranch.trim() ? { baseBranch: baseBranch.trim() } : {}) } : { repo, pullNumber: Number(pull), post };
    try {
      const answer = await request('/api/v1/playbooks/review-pr', { method: 'POST', body });
      setResult({ answer, diff: source === 'diff' ? diff : null });
      requestAnimationFrame(() => document.getElementById('verdict')?.focus());
    } catch (err) {
      setError(err);
    } finally {
      setBusy(false);
    }
  };
  const a = result && result.answer;
  return html`<${Page} title="Review">
    <form class="card" onSubmit=${submit} aria-labelledby="review-form">
      <h2 id="review-form">Review a change</h2>
      <${Input} label="Repository" value=${repo} onInput=${setRepo} error=${repoError} hint="owner/repo, as the agent knows it." autocomplete="off" />
      <${Select}
        label="What to review"
        value=${source}
        onChange=${setSource}
        options=${[
          { value: 'diff', label: 'A pasted diff' },
          { value: 'pull', label: 'A pull request on the forge' },
        ]}
      />
      ${
        source === 'diff'
          ? html`<${TextArea} label="Diff" value=${diff} onInput=${setDiff} rows=${12} hint="A unified diff (git diff), reviewed against the base branch." />
              <${Input} label="Base branch" value=${baseBranch} onInput=${setBaseBranch} hint="Empty: the repository's default branch." autocomplete="off" />`
          : html`<${Input} label="Pull request number" value=${pull} onInput=${setPull} error=${pullError} inputmode="numeric" autocomplete="off" />
              <${Checkbox} label="Post the review on the pull request" checked=${post} onChange=${setPost} />`
      }
      <${ErrorBox} error=${error} />
      <${Button} kind="primary" type="submit" disabled=${busy || !ready}>${busy ? 'Reviewing…' : 'Run the review'}<//>
    </form>
    ${
      a
        ? html`<section class="card" aria-labelledby="verdict">
            <h2 id="verdict" tabindex="-1">
              Verdict: <${Badge} kind=${verdictKind[a.verdict] || 'neutral'}>${verdictText[a.verdict] || a.verdict}<//>${' '}
              <span class="muted">score ${a.score}</span>
            </h2>
            <p>${a.summary}</p>
            <p class="muted">
              Base commit <code>${a.baseCommit}</code>.${' '}
              ${(a.model ? 'Model: ' + a.model + '.' : 'Deterministic checks only (no model review).') + (a.posted ? ` Posted as review ${a.posted.reviewId}.` : '')}
            </p>
            <${Table}
              caption="Findings"
              rows=${a.findings}
              empty="No finding."
              columns=${[
                { label: 'Severity', render: (f) => html`<${Badge} kind=${severityKind[f.severity] || 'neutral'}>${f.severity}<//>` },
                { label: 'Where', render: (f) => (f.file ? html`<code>${f.file}${f.line ? ':' + f.line : ''}</code>` : 'the change') },
                { label: 'Rule', render: (f) => html`<code>${f.rule}</code>` },
                { label: 'Finding', render: (f) => f.message },
              ]}
            />
            ${
              result.diff
                ? html`<h2>Findings on the diff</h2>
                    <${DiffView} diff=${result.diff} notes=${a.findings} />`
                : null
            }
          </section>`
        : null
    }
  <//>`;
}
