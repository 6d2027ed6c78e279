import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCli } from '../helpers/cli.js';
import { fixturesDir, tempDir } from '../helpers/app.js';

const faulty = path.join(fixturesDir, 'plugins/faulty/index.js');

async function startUpFailure(fixture: string): Promise<{ code: number | null; stderr: string }> {
  const manifest = fixture.includes('/') ? path.join(fixturesDir, fixture) : path.join(fixturesDir, 'manifests', fixture, 'manifest.json');
  const cli = runCli(['serve', '--manifest', manifest, '--data-dir', tempDir()]);
  const { code } = await cli.exited;
  return { code, stderr: cli.stderr() };
}

describe("a plugin's start-up error on stderr", () => {
  it('names the file and line in the plugin where setup threw', async () => {
    const { code, stderr } = await startUpFailure('setup-throws');
    expect(code).toBe(1);
    expect(stderr).toBe(`tessera: plugin_setup_failed: [plugin faulty] setup() failed: cannot reach the disk\n  at ${faulty}:15:46\n`);
  });

  it("names the plugin's line that made the runtime refuse it (a route conflict)", async () => {
    const { code, stderr } = await startUpFailure('route-conflict-startup');
    expect(code).toBe(1);
    const [first, second] = stderr.split('\n');
    expect(first).toMatch(/^tessera: plugin_route_conflict: \[plugin faulty\] GET \/faulty is already served/);
    expect(second).toMatch(new RegExp(`^  at ${faulty.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}:21:\\d+$`));
  });

  it.runIf(Number(process.versions.node.split('.')[0]) < 22)('says that Node 20 does not load a .ts plugin, and how to load it', async () => {
    const { code, stderr } = await startUpFailure('ts-plugin/manifest.json');
    expect(code).toBe(1);
    expect(stderr).toContain(
      `tessera: plugin_invalid: [plugin typed] Importing ${path.join(fixturesDir, 'ts-plugin/index.ts')} failed: Node ${process.versions.node} does not load TypeScript. Compile the plugin to JavaScript (tsc)`,
    );
  });
});
