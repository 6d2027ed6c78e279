/**
 * The remediation loop's time per iteration, excluding the model: ticket jobs run through the real
 * app (webhook, triage, grounding, verification, sandboxed pytest, persistence and events after
 * every step, branch, commit, push) against a local OpenAI-compatible server that answers at once.
 * Each job needs 4 iterations: 3 diffs that apply and fail the tests, then one that passes. The
 * time from the first `patching` to `proposing`, minus the gateway's recorded latency of the patch
 * calls, divided by the iterations, is compared with its peer: the bare primitives of one iteration
 * (verifyPatch, then Sandbox.run of the same suite) timed directly. Prints JSON.
 *   npm run bench:agent-loop             (5 jobs)
 *   npm run bench:agent-loop -- --quick  (2 jobs)
 */
import 'reflect-metadata';
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { simpleGit } from 'simple-git';
import { App } from '../../runtime/app.js';
import { createLogger } from '../../runtime/logger.js';
import { resolveManifest } from '../../runtime/manifest.js';
import { commitReader } from '../../plugins/agent/patches/tree-reader.js';
import { verifyPatch } from '../../plugins/agent/patches/verify.js';
import type { Checkout } from '../../plugins/agent/repos/repositories.js';
import { Sandbox } from '../../plugins/agent/sandbox/run.js';

const jobs = process.argv.includes('--quick') ? 2 : 5;
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
const root = mkdtempSync(path.join(tmpdir(), 'tessera-bench-loop-'));
const env = { ...process.env, GIT_AUTHOR_NAME: 'b', GIT_AUTHOR_EMAIL: 'b@x', GIT_COMMITTER_NAME: 'b', GIT_COMMITTER_EMAIL: 'b@x' };
const git = (cwd: string, ...args: string[]) => execFileSync('git', args, { cwd, env, encoding: 'utf8' });

function repo(): { work: string; bare: string } {
  const work = path.join(root, 'repos', 'acme', 'calc');
  const bare = path.join(root, 'bare.git');
  mkdirSync(path.join(work, 'calc'), { recursive: true });
  mkdirSync(path.join(work, 'tests'), { recursive: true });
  mkdirSync(bare);
  writeFileSync(path.join(work, 'calc/__init__.py'), '');
  writeFileSync(path.join(work, 'calc/ops.py'), 'def add(a, b):\n    return a - b\n');
  for (let i = 0; i < 10; i++)
    writeFileSync(path.join(work, `tests/test_ops_${i}.py`), `from calc.ops import add\n\n\ndef test_add_${i}():\n    assert add(${i}, 2) == ${i + 2}\n`);
  git(bare, 'init', '-q', '--bare', '-b', 'main');
  git(work, 'init', '-q', '-b', 'main');
  git(work, 'add', '-A');
  git(work, 'commit', '-qm', 'init');
  git(work, 'remote', 'add', 'origin', bare);
  git(work, 'push', '-q', 'origin', 'main');
  return { work, bare };
}

function diffOf(work: string, body: string): string {
  writeFileSync(path.join(work, 'calc/ops.py'), `def add(a, b):\n    ${body}\n`);
  const diff = git(work, 'diff');
  git(work, 'checkout', '-q', '--', '.');
  return diff;
}

async function main() {
  const { work } = repo();
  const failing = [diffOf(work, 'return a * b'), diffOf(work, 'return b - a'), diffOf(work, 'return a + b + 1')];
  const passing = diffOf(work, 'return a + b');
  let patchCalls = 0;
  const server = createServer((req, res) => {
    let raw = '';
    req.on('data', (c: Buffer) => (raw += c));
    req.on('end', () => {
      const body = JSON.parse(raw);
      const triage = String(body.messages[0].content).includes('triage and clarity agent');
      const content = triage
        ? JSON.stringify({ actionable: true, role: 'backend-python', summary: 'add subtracts', files: ['calc/ops.py'] })
        : `\`\`\`diff\n${patchCalls % 4 === 3 ? passing : failing[patchCalls % 4]}\`\`\``;
      if (!triage) patchCalls++;
      res.writeHead(200, { 'content-type': 'application/json' }).end(
        JSON.stringify({
          id: 'x',
          object: 'chat.completion',
          created: 0,
          model: body.model,
          choices: [{ index: 0, message: { role: 'assistant', content }, finish_reason: 'stop' }],
          usage: { prompt_tokens: 1000, completion_tokens: 100, total_tokens: 1100 },
        }),
      );
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`;
  const manifest = resolveManifest(
    {
      name: 'bench-loop',
      listeners: [{ name: 'agent', port: 0, plugins: ['agent'] }],
      plugins: {
        search: {},
        graph: {},
        agent: { options: { baseUrl, reposRoot: path.join(root, 'repos'), tickets: { maxIterations: 4 } } },
      },
    },
    { file: '(bench)', dir: process.cwd(), dataDir: path.join(root, 'data') },
  );
  const app = await App.create(manifest, { logger: createLogger({ level: 'warn' }) });
  await app.start();
  const url = app.url('agent');
  const call = async (method: string, p: string, body?: unknown) => {
    const res = await fetch(`${url}${p}`, {
      method,
      headers: body ? { 'content-type': 'application/json' } : {},
      ...(body ? { body: JSON.stringify(body) } : {}),
    });
    return (await res.json()) as any;
  };
  await call('POST', '/api/v1/models/config', { apiKey: 'sk-bench-0001' });
  const perIteration: number[] = [];
  const modelShare: number[] = [];
  for (let j = 0; j < jobs; j++) {
    const { jobId } = await call('POST', '/api/v1/tickets/webhook', {
      ticket_id: `B-${j}`,
      repo_name: 'acme/calc',
      title: 'add subtracts',
      description: 'add(2, 3) is -1',
    });
    let job: any;
    for (;;) {
      job = (await call('GET', `/api/v1/jobs/${jobId}`)).job;
      if (['completed', 'failed'].includes(job.state)) break;
      await new Promise((r) => setTimeout(r, 200));
    }
    if (job.state !== 'completed' || job.attempts.length !== 4 || job.attempts.filter((a: any) => a.tests?.passed === false).length !== 3)
      throw new Error(`job ${jobId} did not run as scripted: ${JSON.stringify(job.timeline)}`);
    const at = (state: string) => Date.parse(job.timeline.find((e: any) => e.state === state).at);
    const span = at('proposing') - at('patching');
    const calls = ((await call('GET', '/api/v1/telemetry/events?limit=1000&kind=llm.call')).events as any[]).filter(
      (e) => Date.parse(e.time) >= at('patching') && Date.parse(e.time) <= at('proposing'),
    );
    if (calls.length !== 4) throw new Error(`expected 4 patch calls in the span, found ${calls.length}`);
    const modelMs = calls.reduce((n, e) => n + e.data.latencyMs, 0);
    perIteration.push((span - modelMs) / 4);
    modelShare.push(modelMs / 4);
  }
  await app.stop();
  server.close();

  // The peer: the bare primitives of one iteration on the same repository.
  const c = { dir: work, git: simpleGit(work), gitConfig: [] } as unknown as Checkout;
  const head = git(work, 'rev-parse', 'HEAD').trim();
  const sandbox = new Sandbox({
    mode: 'auto',
    dir: path.join(tmpdir(), 'tessera-agent-sandbox'),
    timeoutMs: 60_000,
    memoryMb: 1024,
    maxProcesses: 256,
    maxOutputBytes: 1_000_000,
    maxFileMb: 100,
    uid: 65534,
    gid: 65534,
    hide: [],
  });
  const primitives: number[] = [];
  for (let i = 0; i < 5; i++) {
    const t0 = performance.now();
    const v = await verifyPatch(failing[0]!, await commitReader(c, head));
    const run = await sandbox.run({
      tenant: 'bench',
      user: 'bench',
      source: work,
      files: new Map(v.files.map((f) => [f.path, f.after] as [string, string | null])),
    });
    if (!v.ok || run.ok) throw new Error('the peer did not verify and fail as expected');
    primitives.push(performance.now() - t0);
  }
  const loopMs = Math.round(median(perIteration));
  const peerMs = Math.round(median(primitives));
  console.log(
    JSON.stringify({
      loop: {
        jobs,
        iterationsPerJob: 4,
        perIterationMsExcludingModel: loopMs,
        modelMsPerIteration: Math.round(median(modelShare) * 10) / 10,
        isolation: sandbox.mode(),
      },
      peer: { verifyAndSandboxedTestMs: peerMs },
      overheadRatio: Math.round((loopMs / peerMs) * 100) / 100,
    }),
  );
  rmSync(root, { recursive: true, force: true });
}

await main();
