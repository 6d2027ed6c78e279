import { html, useEffect, useState } from '../lib/preact.js';
import { request } from '../lib/api.js';
import { Button, Checkbox, ErrorBox, Input, Notice, Select, useResource } from '../lib/components.js';
import { count, usd } from './money.js';

/** Semantic cache statistics and the clear button (`/api/v1/cache/*`). */
export function CacheStats() {
  const stats = useResource(() => request('/api/v1/cache/stats'), []);
  const [cleared, setCleared] = useState(null);
  const [error, setError] = useState(null);
  const [confirming, setConfirming] = useState(false);
  const clear = async () => {
    setError(null);
    try {
      const answer = await request('/api/v1/cache/clear', { method: 'POST' });
      setCleared(answer.cleared);
      setConfirming(false);
      stats.reload();
    } catch (e) {
      setError(e);
    }
  };
  const s = stats.data && stats.data.stats;
  return html`<section class="card" aria-labelledby="cache">
    <h2 id="cache">Semantic cache</h2>
    <${ErrorBox} error=${stats.error || error} />
    ${
      s
        ? html`<dl class="counts">
            <dt>Entries</dt>
            <dd>${count(s.entries)}</dd>
            <dt>Hit rate</dt>
            <dd>
              ${`${(s.hitRate * 100).toFixed(1)}% (${count(s.hits)} hits: ${count(s.exactHits)} exact, ${count(s.semanticHits)} semantic; ${count(s.misses)} misses)`}
            </dd>
            <dt>Saved</dt>
            <dd>${count(s.tokensSaved)} tokens, ${usd(s.dollarsSaved)}</dd>
            <dt>Similarity threshold</dt>
            <dd>${s.similarityThreshold}</dd>
            <dt>Enabled</dt>
            <dd>${s.enabled ? 'yes' : 'no (cache.enabled is false in the manifest)'}</dd>
          </dl>`
        : null
    }
    ${cleared !== null ? html`<${Notice} kind="success">${cleared} cache entries cleared; the statistics are kept.<//>` : null}
    <div class="actions">
      <${Button} onClick=${stats.reload}>Refresh<//>
      ${
        confirming
          ? html`<${Button} kind="danger" onClick=${clear}>Clear every entry of this tenant<//> <${Button} onClick=${() => setConfirming(false)}>Cancel<//>`
          : html`<${Button} kind="danger" onClick=${() => setConfirming(true)}>Clear the cache<//>`
      }
    </div>
  </section>`;
}

const modes = [
  { value: 'minimal', label: 'Minimal: no escalation, 2 candidates per tier, 1 iteration' },
  { value: 'balanced', label: 'Balanced: escalate 2 tiers, 4 candidates, 4 iterations' },
  { value: 'thorough', label: 'Thorough: escalate 4 tiers, 10 candidates, 8 iterations' },
];

/** The token budget and engagement mode (`/api/v1/tokens/budget`). */
export function BudgetSettings() {
  const budget = useResource(() => request('/api/v1/tokens/budget'), []);
  const [maxTokens, setMaxTokens] = useState('');
  const [suppress, setSuppress] = useState(false);
  const [mode, setMode] = useState('balanced');
  const [error, setError] = useState(null);
  const [saved, setSaved] = useState(false);
  const b = budget.data && budget.data.budget;
  useEffect(() => {
    if (!b) return;
    setMaxTokens(String(b.maxOutputTokens));
    setSuppress(b.suppressThinkingStream);
    setMode(b.engagementMode);
  }, [b]);
  const ceiling = b ? b.maxOutputTokensCeiling : 32768;
  const n = Number(maxTokens);
  const tokensError = maxTokens !== '' && !(Number.isInteger(n) && n >= 1 && n <= ceiling) ? `A whole number from 1 to ${ceiling}.` : undefined;
  const submit = async (e) => {
    e.preventDefault();
    setError(null);
    setSaved(false);
    try {
      await request('/api/v1/tokens/budget', { method: 'POST', body: { maxOutputTokens: n, suppressThinkingStream: suppress, engagementMode: mode } });
      setSaved(true);
      budget.reload();
    } catch (err) {
      setError(err);
    }
  };
  return html`<section class="card" aria-labelledby="budget">
    <h2 id="budget">Token budget and engagement mode</h2>
    <${ErrorBox} error=${budget.error} />
    ${
      b
        ? html`<form onSubmit=${submit}>
            <${Input}
              label="Most output tokens per call"
              value=${maxTokens}
              onInput=${setMaxTokens}
              error=${tokensError}
              inputmode="numeric"
              hint=${'Larger requests are cut to it; at most ' + ceiling + '.'}
            />
            <${Select} label="Engagement mode" value=${mode} onChange=${setMode} options=${modes} />
            <${Checkbox} label="Strip the model's reasoning from answers (its tokens still count)" checked=${suppress} onChange=${setSuppress} />
            <p class="muted">
              ${`Now: escalation up to ${b.limits.maxEscalation} tier(s), ${b.limits.candidatesPerTier} candidates per tier, ${b.limits.maxIterations} iteration(s).`}
            </p>
            <${ErrorBox} error=${error} />
            ${saved ? html`<${Notice} kind="success">Budget saved.<//>` : null}
            <${Button} kind="primary" type="submit" disabled=${!!tokensError || maxTokens === ''}>Save budget<//>
          </form>`
        : null
    }
  </section>`;
}
