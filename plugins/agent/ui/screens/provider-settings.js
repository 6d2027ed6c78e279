import { html, useEffect, useState } from '../lib/preact.js';
import { request } from '../lib/api.js';
import { Button, ErrorBox, Input, Notice, Select, TextArea, useResource } from '../lib/components.js';
import { when } from './money.js';

const intervals = [
  { value: '', label: 'None (sync on demand)' },
  { value: 'hourly', label: 'Hourly' },
  { value: '6h', label: 'Every 6 hours' },
  { value: 'daily', label: 'Daily' },
  { value: 'weekly', label: 'Weekly' },
];

/**
 * The routing provider (`GET`/`POST /api/v1/models/config`): base URL, sync interval, tier
 * overrides and the API key, which is write-only: the page shows whether one is set and its last
 * four characters, never the key, and sends a new one only when typed.
 */
export function ProviderSettings() {
  const config = useResource(() => request('/api/v1/models/config'), []);
  const [baseUrl, setBaseUrl] = useState('');
  const [interval, setInterval] = useState('');
  const [apiKey, setApiKey] = useState('');
  const [overrides, setOverrides] = useState('{}');
  const [error, setError] = useState(null);
  const [saved, setSaved] = useState(false);
  const [busy, setBusy] = useState(false);
  const c = config.data && config.data.config;
  useEffect(() => {
    if (!c) return;
    setBaseUrl(c.baseUrlSource === 'tenant' ? c.baseUrl : '');
    setInterval(c.syncInterval || '');
    setOverrides(JSON.stringify(c.tierOverrides || {}, null, 2));
  }, [c]);
  let overridesError;
  let parsedOverrides;
  try {
    parsedOverrides = JSON.parse(overrides || '{}');
    if (typeof parsedOverrides !== 'object' || parsedOverrides === null || Array.isArray(parsedOverrides))
      overridesError = 'An object of model id to tier (1-10) or null.';
  } catch (e) {
    overridesError = 'Not JSON: ' + e.message;
  }
  const save = async (body) => {
    setBusy(true);
    setError(null);
    setSaved(false);
    try {
      await request('/api/v1/models/config', { method: 'POST', body });
      setApiKey('');
      setSaved(true);
      config.reload();
    } catch (err) {
      setError(err);
    } finally {
      setBusy(false);
    }
  };
  const submit = (e) => {
    e.preventDefault();
    save({
      baseUrl: baseUrl.trim() ? baseUrl.trim() : null,
      syncInterval: interval || null,
      tierOverrides: parsedOverrides,
      ...(apiKey ? { apiKey } : {}),
    });
  };
  return html`<section class="card" aria-labelledby="provider">
    <h2 id="provider">Provider settings</h2>
    ${config.error ? html`<${ErrorBox} error=${config.error} />` : null}
    ${
      c
        ? html`<p>
              Provider: <code>${c.baseUrl}</code> ${c.baseUrlSource === 'tenant' ? "(this tenant's)." : "(the manifest's)."}${' '}
              ${'API key: '}<strong>${c.apiKey.configured ? 'set, ending in ' + c.apiKey.last4 : c.apiKey.operatorKey ? "not set (the operator's key is used)" : 'not set'}</strong>${'. Next scheduled sync: ' + when(c.nextSyncAt) + '.'}
            </p>
            <form onSubmit=${submit}>
              <${Input}
                label="Base URL"
                type="url"
                value=${baseUrl}
                onInput=${setBaseUrl}
                hint="An OpenAI- or OpenRouter-compatible server; empty for the manifest's."
                autocomplete="off"
              />
              <${Select} label="Sync interval" value=${interval} onChange=${setInterval} options=${intervals} />
              <${Input}
                label="API key"
                type="password"
                value=${apiKey}
                onInput=${setApiKey}
                hint="Write-only: stored sealed and never shown again. Leave empty to keep the current key."
                autocomplete="new-password"
              />
              <${TextArea}
                label="Tier overrides"
                value=${overrides}
                onInput=${setOverrides}
                rows=${4}
                error=${overridesError}
                hint='Model id to tier, e.g. {"acme/coder": 3}; null removes one.'
              />
              <${ErrorBox} error=${error} />
              ${saved ? html`<${Notice} kind="success">Provider settings saved.<//>` : null}
              <div class="actions">
                <${Button} kind="primary" type="submit" disabled=${busy || !!overridesError}>Save provider settings<//>
                ${c.apiKey.configured ? html`<${Button} kind="danger" disabled=${busy} onClick=${() => save({ apiKey: null })}>Remove the API key<//>` : null}
              </div>
            </form>`
        : null
    }
  </section>`;
}
