import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { tempDir } from '../../helpers/app.js';
import { git, gitRaw, makeRepo, type Fixture } from './git-fixture.js';
import { startProviderServer, type ModelListServer } from './provider-server.js';
import { startAgent, type AgentApp } from './support.js';
import { configureProvider, diffOf, scriptProvider, statesOf, waitForState, type TicketScript } from './ticket-support.js';

// A job stopped by a restart in `testing` resumes there after the next start: the diff already
// written is tested again, no model is asked again, and the job goes on to its pull request.
describe('ticket jobs across a restart', () => {
  let t: AgentApp | undefined;
  let fx: Fixture;
  let provider: ModelListServer;
  const scripts = new Map<string, TicketScript>();
  const dataDir = path.join(tempDir(), 'data');
  const fixed = 'def add(a, b):\n    return a + b\n';
  let options: Record<string, unknown>;

  beforeAll(async () => {
    fx = makeRepo('acme', 'slow', {
      'calc/ops.py': 'def add(a, b):\n    return a - b\n',
      'tests/test_ops.py': 'import time\n\nfrom calc.ops import add\n\n\ndef test_add():\n    time.sleep(4)\n    assert add(2, 3) == 5\n',
    });
    provider = await startProviderServer();
    scriptProvider(provider, scripts);
    scripts.set('SLOW-1', {
      triage: [{ actionable: true, role: 'backend-python', summary: 'add subtracts' }],
      patches: [diffOf(fx.work, { 'calc/ops.py': fixed })],
    });
    options = { baseUrl: provider.baseUrl, reposRoot: fx.reposRoot, workspaces: { refreshSeconds: 0 } };
    t = await startAgent(options, { dataDir });
    await configureProvider(t);
  });
  afterAll(async () => {
    await t?.stop();
    await provider?.close();
  });

  it('resumes a job stopped in testing from its last saved step and finishes it', async () => {
    const res = await t!.call('POST', '/api/v1/tickets/webhook', {
      ticket_id: 'SLOW-1',
      repo_name: 'acme/slow',
      title: 'add subtracts',
      description: 'add(2, 3) is -1',
    });
    const id = res.body.jobId as string;
    const testing = await waitForState(t!, id, ['testing', 'completed', 'failed']);
    expect(testing.state).toBe('testing');
    const callsBefore = provider.chats.length;
    await t!.stop();
    t = undefined;

    t = await startAgent(options, { dataDir });
    const done = await waitForState(t, id, ['completed', 'failed']);
    expect(statesOf(done)).toEqual(['queued', 'triaging', 'planning', 'patching', 'testing', 'testing', 'proposing', 'completed']);
    expect(done.attempts).toHaveLength(1);
    expect(done.attempts[0].tests).toMatchObject({ passed: true, exitCode: 0 });
    expect(provider.chats.length).toBe(callsBefore);
    expect(done.runs.length).toBe(1);
    expect(done.branch).toMatch(/^agent\/patch-[0-9a-f]{12}$/);
    expect(done.pullRequest).toBeUndefined();
    expect(gitRaw(fx.bare, 'show', `${git(fx.bare, 'rev-parse', `refs/heads/${done.branch}`)}:calc/ops.py`)).toBe(fixed);
  });
});
