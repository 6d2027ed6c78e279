import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { codeIndexName } from '../../../plugins/agent/code/code-index.js';
import { git, makeRepo, pythonProject, type Fixture } from './git-fixture.js';
import { startProviderServer, type ModelListServer } from './provider-server.js';
import { startAgent, type AgentApp } from './support.js';
import { configureProvider } from './ticket-support.js';

const index = 'code--acme--widget';
const enc = encodeURIComponent;
const kg = (t: AgentApp) => t.call('GET', '/api/v1/repos/acme%2Fwidget/knowledge-graph?full=true');
const edgesOf = (body: any): string[] => body.edges.map((e: { from: string; to: string; kind: string }) => `${e.from} ${e.kind} ${e.to}`);

describe('codeIndexName', () => {
  it('derives the index name from owner/repo within the search index name rules', () => {
    expect(codeIndexName('acme/widget')).toBe('code--acme--widget');
    expect(codeIndexName('my_org/tool-kit')).toBe('code--my_org--tool-kit');
    // Changed by the rules (case, dots) or too long: a hash of the full name keeps names apart.
    const a = codeIndexName('Acme/Widget.js');
    const b = codeIndexName('acme/widget-js');
    expect(a).toMatch(/^code--acme--widget-js-[0-9a-f]{8}$/);
    expect(b).toBe('code--acme--widget-js');
    const long = codeIndexName(`${'o'.repeat(60)}/${'r'.repeat(60)}`);
    expect(long.length).toBeLessThanOrEqual(64);
    expect(long).toMatch(/^[a-z0-9][a-z0-9_-]*-[0-9a-f]{8}$/);
  });
});

describe('the code knowledge graph in the search and graph plugins', () => {
  let t: AgentApp;
  let fx: Fixture;
  beforeAll(async () => {
    fx = makeRepo('acme', 'widget', pythonProject);
    t = await startAgent(
      { baseUrl: 'http://127.0.0.1:9/api/v1', reposRoot: fx.reposRoot, workspaces: { refreshSeconds: 0 } },
      { listenerPlugins: ['agent', 'search', 'graph'] },
    );
  });
  afterAll(() => t.stop());

  it('writes the declarations to the code search index, with vectors, searchable through the search API', async () => {
    const built = await kg(t);
    expect(built.status).toBe(200);
    expect(built.body.index).toBe(index);
    const info = await t.call('GET', `/v1/indexes/${index}`);
    expect(info.status).toBe(200);
    expect(info.body.index.docCount).toBe(20);
    expect(info.body.index.settings).toMatchObject({ autoEmbed: true, embedder: { type: 'builtin', model: 'corpus-lsa-v1' }, vectorDimensions: 384 });
    const doc = await t.call('GET', `/v1/indexes/${index}/documents/${enc('calc/ops.py#Stats.mean')}`);
    expect(doc.status).toBe(200);
    expect(doc.body.document).toMatchObject({
      id: 'calc/ops.py#Stats.mean',
      kind: 'method',
      name: 'mean',
      qualifiedName: 'Stats.mean',
      file: 'calc/ops.py',
      language: 'python',
      signature: 'def mean(self) -> float',
      snippet: 'def mean(self) -> float:\nreturn total(self.values) / len(self.values)',
      parent: 'calc/ops.py#Stats',
      startLine: 17,
      endLine: 18,
      startColumn: 5,
    });
    // Keyword search over the split identifiers, and the vector side over the embedded declarations.
    const keyword = await t.call('POST', `/v1/indexes/${index}/search`, { q: 'stats mean', filter: { eq: { kind: 'method' } } });
    expect(keyword.body.hits[0].id).toBe('calc/ops.py#Stats.mean');
    const semantic = await t.call('POST', `/v1/indexes/${index}/search`, { q: 'mean', mode: 'semantic', size: 3 });
    expect(semantic.status).toBe(200);
    expect(semantic.body.hits.map((h: { id: string }) => h.id)).toContain('calc/ops.py#Stats.mean');
    expect(semantic.body.hits.every((h: { score: number }) => h.score > 0)).toBe(true);
  });

  it("shows the code graph's entities and triples through the graph plugin's own routes", async () => {
    const stats = await t.call('GET', `/v1/indexes/${index}/graph/stats`);
    expect(stats.status).toBe(200);
    expect(stats.body.stats.entities).toBe(20);
    expect(stats.body.stats.types).toEqual({ module: 5, class: 2, method: 5, function: 8 });
    const full = await kg(t);
    expect(stats.body.stats.triples).toBe(full.body.edges.length);
    expect(Object.keys(stats.body.stats.predicates).sort()).toEqual(['calls', 'contains', 'imports']);
    const mean = await t.call('GET', `/v1/indexes/${index}/graph/entities/${enc('calc/ops.py#Stats.mean')}`);
    expect(mean.status).toBe(200);
    expect(mean.body.entity).toEqual({
      id: 'calc/ops.py#Stats.mean',
      name: 'mean',
      type: 'method',
      aliases: ['Stats.mean'],
      properties: { file: 'calc/ops.py', startLine: 17, endLine: 18 },
      docIds: ['calc/ops.py#Stats.mean'],
    });
    const triples = mean.body.triples.map((x: any) => `${x.subject} ${x.predicate} ${x.object} ${x.weight}`).sort();
    expect(triples).toEqual([
      'calc/ops.py#Stats contains calc/ops.py#Stats.mean 0.5',
      'calc/ops.py#Stats.mean calls calc/ops.py#total 1',
      'calc/ops.py#Stats.root calls calc/ops.py#Stats.mean 1',
      'tests/test_ops.py#test_mean calls calc/ops.py#Stats.mean 1',
    ]);
    // The agent's triples are the whole graph: declarations are not linked to entities by name.
    expect(mean.body.mentionedIn).toEqual([]);
    const found = await t.call('POST', `/v1/indexes/${index}/graph/search`, { query: 'Stats.mean', maxHops: 1, types: ['function'] });
    expect(found.body.entities.map((e: { id: string }) => e.id)).toEqual(['calc/ops.py#total', 'tests/test_ops.py#test_mean']);
  });

  it('offers declaration names, kinds and graph entities to autocomplete over the code index', async () => {
    // One suggestion per text: the declaration `total` as a title (document) or a graph entity.
    const res = await t.call('GET', `/v1/indexes/${index}/autocomplete?q=tot&size=20`);
    expect(res.status).toBe(200);
    const total = res.body.suggestions.filter((s: any) => s.text === 'total');
    expect(total).toHaveLength(1);
    expect(['document', 'entity']).toContain(total[0].type);
    expect(total[0].docId ?? total[0].payload?.entityId).toBe('calc/ops.py#total');
    const kinds = await t.call('GET', `/v1/indexes/${index}/autocomplete?q=meth&size=20`);
    expect(kinds.body.suggestions).toContainEqual(expect.objectContaining({ type: 'category', text: 'method', count: 5, payload: { field: 'kind' } }));
  });

  it('re-parses only changed files, re-resolves calls into a changed file, and removes a deleted file', async () => {
    const before = await kg(t);
    expect(before.body.stats).toMatchObject({ parsedFiles: 0, reusedFiles: 5 });
    expect(edgesOf(before.body)).toContain('web/app.ts#Greeter.greet calls web/util.js#helper');
    // `helper` renamed: the call in web/app.ts (not parsed again) no longer resolves to it.
    writeFileSync(path.join(fx.work, 'web/util.js'), 'export function assist(name) {\n  return name;\n}\n');
    git(fx.work, 'rm', '-q', 'calc/__init__.py');
    git(fx.work, 'commit', '-qam', 'rename helper, drop init');
    git(fx.work, 'push', '-q', 'origin', 'main');
    const after = await kg(t);
    expect(after.body.stats).toMatchObject({ files: 4, parsedFiles: 1, reusedFiles: 3, removedFiles: 1, declarations: 19 });
    const edges = edgesOf(after.body);
    expect(edges.filter((e) => e.includes('web/util.js#helper'))).toEqual([]);
    expect(edges.filter((e) => e.includes('calc/__init__.py'))).toEqual([]);
    expect(edges).toContain('web/util.js contains web/util.js#assist');
    expect((await t.call('GET', `/v1/indexes/${index}/documents/${enc('web/util.js#helper')}`)).status).toBe(404);
    expect((await t.call('GET', `/v1/indexes/${index}/documents/${enc('calc/__init__.py')}`)).status).toBe(404);
    expect((await t.call('GET', `/v1/indexes/${index}/graph/entities/${enc('calc/__init__.py')}`)).status).toBe(404);
    expect((await t.call('GET', `/v1/indexes/${index}`)).body.index.docCount).toBe(19);
    const graph = (await t.call('GET', `/v1/indexes/${index}/graph/stats`)).body.stats;
    expect(graph).toMatchObject({ entities: 19, triples: after.body.edges.length });

    // `helper` back under its name: the unchanged caller's call resolves to it again.
    writeFileSync(path.join(fx.work, 'web/util.js'), 'export function helper(name) {\n  return name;\n}\n');
    git(fx.work, 'commit', '-qam', 'helper again');
    git(fx.work, 'push', '-q', 'origin', 'main');
    const again = await kg(t);
    expect(again.body.stats).toMatchObject({ parsedFiles: 1, reusedFiles: 3 });
    expect(edgesOf(again.body)).toContain('web/app.ts#Greeter.greet calls web/util.js#helper');
  });

  it('removes what an update cut short before its ledger commit left in the index and the graph', async () => {
    // A crash after the search and graph writes but before the ledger's commit leaves declarations
    // that no parse made: the next update must delete them, whichever file they name.
    const ghost = 'web/util.js#ghost';
    expect((await t.call('POST', `/v1/indexes/${index}/documents`, [{ id: ghost, kind: 'function', name: 'ghost', file: 'web/util.js' }])).status).toBe(200);
    expect((await t.call('POST', `/v1/indexes/${index}/graph/entities`, { entities: [{ id: ghost, name: 'ghost', type: 'function' }] })).status).toBe(200);
    writeFileSync(path.join(fx.work, 'calc/ops.py'), readFileSync(path.join(fx.work, 'calc/ops.py'), 'utf8') + '\n# touched\n');
    git(fx.work, 'commit', '-qam', 'touch ops');
    git(fx.work, 'push', '-q', 'origin', 'main');
    const after = await kg(t);
    expect(after.body.stats).toMatchObject({ parsedFiles: 1 });
    expect((await t.call('GET', `/v1/indexes/${index}/documents/${enc(ghost)}`)).status).toBe(404);
    expect((await t.call('GET', `/v1/indexes/${index}/graph/entities/${enc(ghost)}`)).status).toBe(404);
    expect((await t.call('GET', `/v1/indexes/${index}`)).body.index.docCount).toBe(after.body.declarations.length);
  });

  it('rebuilds from nothing when the code index was dropped through the search API', async () => {
    expect((await t.call('DELETE', `/v1/indexes/${index}`)).status).toBe(200);
    const rebuilt = await kg(t);
    expect(rebuilt.body.stats).toMatchObject({ files: 4, parsedFiles: 4, reusedFiles: 0 });
    expect((await t.call('GET', `/v1/indexes/${index}`)).body.index.docCount).toBe(19);
    expect((await t.call('GET', `/v1/indexes/${index}/graph/stats`)).body.stats.entities).toBe(19);
  });
});

describe('grounding a remediation in the code index', () => {
  let t: AgentApp;
  let fx: Fixture;
  let provider: ModelListServer;
  const prompts: string[] = [];
  beforeAll(async () => {
    fx = makeRepo('acme', 'shop', {
      'billing/invoice.py': [
        'def compute_invoice_total(lines):',
        '    return sum(line_amount(line) for line in lines)',
        '',
        '',
        'def line_amount(line):',
        '    """Quantity times unit price, less the customer discount."""',
        '    return line.qty * line.price',
        '',
      ].join('\n'),
      'billing/report.py':
        'from .invoice import compute_invoice_total\n\n\ndef summarise(batches):\n    return [compute_invoice_total(b.items) for b in batches]\n',
      'shipping/route.py': 'def plan_route(stops):\n    return sorted(stops)\n\n\ndef courier_for(route):\n    return route[0]\n',
    });
    provider = await startProviderServer();
    provider.defaultAnswer = (_model, body) => {
      prompts.push(String(body.messages.at(-1)?.content ?? ''));
      return { content: 'no idea', usage: { prompt: 10, completion: 2 } };
    };
    t = await startAgent({ baseUrl: provider.baseUrl, reposRoot: fx.reposRoot, workspaces: { refreshSeconds: 0 } });
    await configureProvider(t);
  });
  afterAll(async () => {
    await t?.stop();
    await provider?.close();
    rmSync(fx.reposRoot, { recursive: true, force: true });
  });

  it('puts the declarations the ticket is about, and their callers and callees, into the prompt', async () => {
    const res = await t.call('POST', '/api/v1/agent/remediate', {
      repo: 'acme/shop',
      instructions: 'The invoice total ignores the discount',
      maxIterations: 1,
    });
    expect(res.status).toBe(422);
    const prompt = prompts.at(-1)!;
    const section = prompt.slice(prompt.indexOf('Declarations relevant to the ticket:'), prompt.indexOf('\n--- file:'));
    const lines = section.split('\n');
    // The function named by the ticket's words first; the one whose docstring speaks of the discount too.
    expect(lines[1]).toBe('- function compute_invoice_total (billing/invoice.py:1): def compute_invoice_total(lines)');
    expect(lines).toContain('- function line_amount (billing/invoice.py:5): def line_amount(line)');
    expect(section).toContain('- summarise (billing/report.py:4) is a caller of compute_invoice_total');
    expect(section).not.toContain('plan_route');
    expect(section).not.toContain('courier_for');
    expect(prompt).toContain('--- file: billing/invoice.py ---');
    expect(prompt).toContain('--- file: billing/report.py ---');
    expect(prompt).not.toContain('--- file: shipping/route.py ---');
  });
});

describe('grounding once the code index has learnt its embedder', () => {
  let t: AgentApp;
  let fx: Fixture;
  let provider: ModelListServer;
  const prompts: string[] = [];
  beforeAll(async () => {
    fx = makeRepo('acme', 'books', {
      'billing/refunds.py': [
        'def refund_order(order):',
        '    """Refund the invoice to the customer card."""',
        '    return order',
        '',
        '',
        'def refund_shipping(order):',
        '    """Refund the shipping line of the invoice to the customer card."""',
        '    return order',
        '',
        '',
        'def partial_refund(order, amount):',
        '    """Refund part of the invoice to the customer card."""',
        '    return amount',
        '',
      ].join('\n'),
      'billing/ledger.py': 'def settle_invoice(invoice):\n    """Charge the customer card for the invoice."""\n    return invoice\n',
      'billing/month.py': 'from .ledger import settle_invoice\n\n\ndef close_month(invoices):\n    return [settle_invoice(i) for i in invoices]\n',
      'shipping/route.py': [
        'def plan_route(stops):',
        '    """Order the courier stops by distance from the depot."""',
        '    return sorted(stops)',
        '',
        '',
        'def courier_for(route):',
        '    """Pick the courier who drives the route from the depot."""',
        '    return route[0]',
        '',
      ].join('\n'),
      'hr/payroll.py': [
        'def run_payroll(staff):',
        '    """Pay each employee their monthly salary."""',
        '    return staff',
        '',
        '',
        'def payslip(employee):',
        '    """The employee salary slip for the month."""',
        '    return employee',
        '',
      ].join('\n'),
    });
    provider = await startProviderServer();
    provider.defaultAnswer = (_model, body) => {
      prompts.push(String(body.messages.at(-1)?.content ?? ''));
      return { content: 'no idea', usage: { prompt: 10, completion: 2 } };
    };
    t = await startAgent(
      { baseUrl: provider.baseUrl, reposRoot: fx.reposRoot, workspaces: { refreshSeconds: 0 } },
      { listenerPlugins: ['agent', 'search', 'graph'] },
    );
    await configureProvider(t);
  });
  afterAll(async () => {
    await t?.stop();
    await provider?.close();
    rmSync(fx.reposRoot, { recursive: true, force: true });
  });

  it('keeps what the vector side ranks without similarity out of the prompt', async () => {
    expect((await t.call('GET', '/api/v1/repos/acme%2Fbooks/knowledge-graph')).status).toBe(200);
    // The index is small: the embedder is trained on demand rather than at 200 declarations.
    const trained = await t.call('POST', '/v1/indexes/code--acme--books/embedder/train');
    expect(trained.body.index.stats.embedder).toMatchObject({ model: 'corpus-lsa-v1', trained: true });
    const res = await t.call('POST', '/api/v1/agent/remediate', { repo: 'acme/books', instructions: 'A refund is broken', maxIterations: 1 });
    expect(res.status).toBe(422);
    const prompt = prompts.at(-1)!;
    const section = prompt.slice(prompt.indexOf('Declarations relevant to the ticket:'), prompt.indexOf('\n--- file:'));
    const names = [...section.matchAll(/^- function (\S+) /gm)].map((m) => m[1]);
    // A dozen declarations teach the embedder little: the vector side ranks the others near 0
    // (under minSimilarity), so the prompt holds the keyword matches and not the whole repository.
    expect(names.sort()).toEqual(['partial_refund', 'refund_order', 'refund_shipping']);
    expect(section).not.toContain('Callers and callees:');
  });
});
