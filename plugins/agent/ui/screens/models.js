import { html, useState } from '../lib/preact.js';
import { request } from '../lib/api.js';
import { Button, Dialog, ErrorBox, Loading, Notice, Page, Table, useResource } from '../lib/components.js';
import { ms, usd } from './money.js';
import { AddModel } from './model-add.js';
import { ProviderSettings } from './provider-settings.js';

/** The result of "Sync now": counts and the ids that changed. */
function SyncReport({ report }) {
  const c = report.changes || { added: [], updated: [], removed: [] };
  return html`<div class="alert alert-success" role="status">
    <p>
      Synced from <code>${report.source}</code> at ${new Date(report.syncedAt).toLocaleString()}:${' '}
      ${`${report.added} added, ${report.updated} updated, ${report.removed} removed, ${report.unchanged} unchanged, ${report.skipped} skipped.`}
    </p>
    ${['added', 'updated', 'removed'].map((k) =>
      c[k] && c[k].length ? html`<p>${k[0].toUpperCase() + k.slice(1)}: ${c[k].map((id, i) => html`${i ? ', ' : ''}<code>${id}</code>`)}</p>` : null,
    )}
  </div>`;
}

/**
 * Models: the ten tiers with their models, prices and latency; add and remove a custom model;
 * sync now and what changed; the provider settings (the key write-only).
 */
export default function Models() {
  const catalog = useResource(() => request('/api/v1/models/catalog'), []);
  const [syncing, setSyncing] = useState(false);
  const [report, setReport] = useState(null);
  const [syncError, setSyncError] = useState(null);
  const [removing, setRemoving] = useState(null);
  const [removeError, setRemoveError] = useState(null);
  const [removed, setRemoved] = useState(null);

  const sync = async () => {
    setSyncing(true);
    setSyncError(null);
    setReport(null);
    try {
      setReport(await request('/api/v1/models/sync', { method: 'POST' }));
      catalog.reload();
    } catch (e) {
      setSyncError(e);
    } finally {
      setSyncing(false);
    }
  };
  const remove = async () => {
    setRemoveError(null);
    try {
      const answer = await request('/api/v1/models/catalog?id=' + encodeURIComponent(removing.id), { method: 'DELETE' });
      setRemoved(answer);
      setRemoving(null);
      catalog.reload();
    } catch (e) {
      setRemoveError(e);
    }
  };

  const data = catalog.data;
  const columns = [
    { label: 'Model', render: (m) => html`<code>${m.id}</code>${m.name && m.name !== m.id ? html`<br /><span class="muted">${m.name}</span>` : null}` },
    { label: 'Provider', render: (m) => m.provider },
    { label: 'Prompt / 1M', render: (m) => usd(m.pricing.promptPer1M) },
    { label: 'Completion / 1M', render: (m) => usd(m.pricing.completionPer1M) },
    { label: 'Latency', render: (m) => ms(m.latencyMs) },
    { label: 'Context', render: (m) => Number(m.contextLength).toLocaleString('en') },
    { label: 'Source', render: (m) => m.source },
    {
      label: 'Actions',
      render: (m) =>
        html`<${Button} kind="ghost" aria-label=${(m.custom ? 'Remove ' : 'Hide ') + m.id} onClick=${() => (setRemoveError(null), setRemoving(m))}
          >${m.custom ? 'Remove' : 'Hide'}<//
        >`,
    },
  ];
  return html`<${Page} title="Models" actions=${html`<${Button} kind="primary" onClick=${sync} disabled=${syncing}>${syncing ? 'Syncing…' : 'Sync now'}<//>`}>
    <p class="muted">The catalogue in ten tiers: each call is routed to a tier and tries its models by health, price and latency.</p>
    ${syncing ? html`<${Loading} what="Reading the provider's model list" />` : null}
    <${ErrorBox} error=${syncError} />
    ${report ? html`<${SyncReport} report=${report} />` : null}
    ${
      removed
        ? html`<${Notice} kind="success"
            ><code>${removed.removed.id}</code>${' '}
            ${`${removed.removed.action === 'deleted' ? 'removed' : removed.removed.action} (tier ${removed.removed.tier}); ${removed.cacheEntriesPurged} cache entries purged.`}<//
          >`
        : null
    }
    <${ErrorBox} error=${catalog.error} />
    ${
      data
        ? data.tiers.map((t) => {
            const models = data.models.filter((m) => m.tier === t.tier);
            return html`<section class="card" aria-labelledby=${'tier-' + t.tier}>
              <h2 id=${'tier-' + t.tier}>Tier ${t.tier}: ${t.category}</h2>
              <p class="muted">Reference price ${usd(t.promptPer1M)} per 1M prompt tokens · about ${ms(t.latencyMs)}</p>
              <${Table} caption=${'Models of tier ' + t.tier} columns=${columns} rows=${models} rowKey=${(m) => m.id} empty="No model in this tier." />
            </section>`;
          })
        : catalog.loading
          ? html`<${Loading} what="Loading the catalogue" />`
          : null
    }
    <${AddModel} tiers=${data ? data.tiers : []} onAdded=${catalog.reload} />
    <${ProviderSettings} />
    <${Dialog} open=${removing !== null} title=${removing ? (removing.custom ? 'Remove ' : 'Hide ') + removing.id : ''} onClose=${() => setRemoving(null)}>
      ${
        removing
          ? html`<p>
                ${removing.custom ? 'The custom model is deleted.' : 'A seed or synced model is hidden for this tenant; a later sync does not bring it back.'}
                Its entries leave the semantic cache.
              </p>
              <${ErrorBox} error=${removeError} />
              <div class="actions">
                <${Button} onClick=${() => setRemoving(null)}>Cancel<//>
                <${Button} kind="danger" onClick=${remove}>${removing.custom ? 'Remove' : 'Hide'}<//>
              </div>`
          : null
      }
    <//>
  <//>`;
}
