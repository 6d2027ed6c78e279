import { html, useState } from '../lib/preact.js';
import { request } from '../lib/api.js';
import { Button, ErrorBox, Input, Notice, Select } from '../lib/components.js';

const idPattern = /^[A-Za-z0-9][A-Za-z0-9._:/@+-]*$/;

/** Adds a custom model to a tier (`POST /api/v1/models/catalog`). */
export function AddModel({ tiers, onAdded }) {
  const [id, setId] = useState('');
  const [name, setName] = useState('');
  const [tier, setTier] = useState('3');
  const [prompt, setPrompt] = useState('');
  const [completion, setCompletion] = useState('');
  const [latency, setLatency] = useState('');
  const [context, setContext] = useState('');
  const [error, setError] = useState(null);
  const [added, setAdded] = useState(null);
  const [busy, setBusy] = useState(false);
  const idError = id && !idPattern.test(id) ? 'Letters, digits and ._:/@+- only, starting with a letter or digit.' : undefined;
  const num = (s) => (s.trim() === '' ? undefined : Number(s));
  const priceError = (s) => (s.trim() !== '' && !(Number(s) >= 0) ? 'A price is a number, zero or more.' : undefined);
  const ready = id && !idError && prompt.trim() && completion.trim() && !priceError(prompt) && !priceError(completion);
  const submit = async (e) => {
    e.preventDefault();
    setBusy(true);
    setError(null);
    setAdded(null);
    try {
      const body = {
        id,
        tier: Number(tier),
        pricing: { promptPer1M: num(prompt), completionPer1M: num(completion) },
        ...(name.trim() ? { name: name.trim() } : {}),
        ...(latency.trim() ? { latencyMs: num(latency) } : {}),
        ...(context.trim() ? { contextLength: num(context) } : {}),
      };
      const answer = await request('/api/v1/models/catalog', { method: 'POST', body });
      setAdded(answer.model);
      setId('');
      setName('');
      setPrompt('');
      setCompletion('');
      setLatency('');
      setContext('');
      onAdded();
    } catch (err) {
      setError(err);
    } finally {
      setBusy(false);
    }
  };
  return html`<section class="card" aria-labelledby="add-model">
    <h2 id="add-model">Add a custom model</h2>
    <form onSubmit=${submit}>
      <div class="columns">
        <${Input} label="Model id" value=${id} onInput=${setId} error=${idError} hint="As the provider names it, e.g. acme/coder-7b." autocomplete="off" />
        <${Input} label="Display name" value=${name} onInput=${setName} autocomplete="off" />
        <${Select} label="Tier" value=${tier} onChange=${setTier} options=${tiers.map((t) => ({ value: String(t.tier), label: `${t.tier}: ${t.category}` }))} />
        <${Input} label="Prompt price (USD per 1M tokens)" value=${prompt} onInput=${setPrompt} error=${priceError(prompt)} inputmode="decimal" />
        <${Input}
          label="Completion price (USD per 1M tokens)"
          value=${completion}
          onInput=${setCompletion}
          error=${priceError(completion)}
          inputmode="decimal"
        />
        <${Input} label="Latency (ms)" value=${latency} onInput=${setLatency} hint="Empty: the tier's." inputmode="numeric" />
        <${Input} label="Context length (tokens)" value=${context} onInput=${setContext} hint="Empty: 8192." inputmode="numeric" />
      </div>
      <${ErrorBox} error=${error} />
      ${added ? html`<${Notice} kind="success">Added <code>${added.id}</code> to tier ${added.tier}.<//>` : null}
      <${Button} kind="primary" type="submit" disabled=${busy || !ready}>Add model<//>
    </form>
  </section>`;
}
