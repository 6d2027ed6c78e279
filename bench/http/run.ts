/**
 * HTTP overhead of the runtime over bare h3, on the same two routes, in the same run (and of the
 * runtime with request logging off, which shows what the one-line-per-request log costs):
 *   npm run bench:http                 (10 s per measurement, 50 connections, 2 rounds)
 *   npm run bench:http -- --quick      (3 s per measurement, 1 round)
 *   npm run bench:http -- --rounds 5 --duration 5   (any number of rounds and seconds)
 * Prints one JSON line per measurement and a summary line; the table lives in bench/README.md.
 *
 * Two measures per server: requests per second under load (the measure), and the server
 * process's CPU time per request (user + system, from /proc/<pid>/stat). On a shared machine the
 * first moves with whatever else runs; the second much less, since it counts only the time the
 * server was actually on a core. The summary takes medians over rounds.
 */
import { readFileSync } from 'node:fs';
import { spawn, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import autocannon from 'autocannon';

const quick = process.argv.includes('--quick');
const option = (name: string): number | undefined => {
  const at = process.argv.indexOf(`--${name}`);
  return at === -1 ? undefined : Number(process.argv[at + 1]);
};
const duration = option('duration') ?? (quick ? 3 : 10);
const rounds = option('rounds') ?? (quick ? 1 : 2);
const connections = 50;
const serverFile = fileURLToPath(new URL('./server.js', import.meta.url));
const echoBody = JSON.stringify({ name: 'tessera', count: 3, tags: ['a', 'b', 'c'] });

interface Server {
  child: ChildProcess;
  url: string;
}

type Kind = 'h3' | 'tessera' | 'tessera-nolog';

/** `tessera-nolog` is the same runtime with request logs off, to show what the log line costs. */
async function startServer(kind: Kind): Promise<Server> {
  const env = { ...process.env, TESSERA_LOG_LEVEL: kind === 'tessera-nolog' ? 'silent' : 'info' };
  const child = spawn(process.execPath, [serverFile, kind === 'h3' ? 'h3' : 'tessera'], { stdio: ['ignore', 'ignore', 'pipe'], env });
  const port = await new Promise<number>((resolve, reject) => {
    let buffered = '';
    child.stderr!.on('data', (chunk: Buffer) => {
      buffered += chunk.toString();
      const match = buffered.match(/\{"port":(\d+)\}/);
      if (match) resolve(Number(match[1]));
    });
    child.on('exit', (code) => reject(new Error(`${kind} server exited with ${code}: ${buffered}`)));
  });
  return { child, url: `http://127.0.0.1:${port}` };
}

async function stopServer(server: Server): Promise<void> {
  const exited = new Promise((resolve) => server.child.on('exit', resolve));
  server.child.kill('SIGTERM');
  await exited;
}

/** The bench times nothing unless both servers give the right answers first. */
async function check(server: Server, kind: string): Promise<void> {
  const health = (await (await fetch(`${server.url}/health`)).json()) as Record<string, unknown>;
  if (health.ok !== true || health.status !== 'ok' || health.storage !== 'lmdb') throw new Error(`${kind} /health answered ${JSON.stringify(health)}`);
  const echo = (await (
    await fetch(`${server.url}/echo`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: echoBody })
  ).json()) as Record<string, unknown>;
  if (JSON.stringify(echo) !== JSON.stringify({ ok: true, echo: JSON.parse(echoBody) })) throw new Error(`${kind} /echo answered ${JSON.stringify(echo)}`);
}

/** CPU seconds (user + system) the process has used, or undefined where /proc is not there. */
function cpuSeconds(pid: number): number | undefined {
  try {
    // Fields after the command name (which may hold spaces, hence the last ')'): utime is the 14th field, stime the 15th.
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const rest = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return (Number(rest[11]) + Number(rest[12])) / 100;
  } catch {
    return undefined;
  }
}

async function load(
  server: Server,
  route: 'health' | 'echo',
): Promise<{ rps: number; p50: number; p99: number; non2xx: number; errors: number; cpuUsPerRequest?: number }> {
  const url = server.url;
  const cpuBefore = cpuSeconds(server.child.pid!);
  const result = await autocannon({
    url: route === 'health' ? `${url}/health` : `${url}/echo`,
    connections,
    duration,
    method: route === 'health' ? 'GET' : 'POST',
    headers: route === 'echo' ? { 'content-type': 'application/json' } : undefined,
    body: route === 'echo' ? echoBody : undefined,
  });
  const cpuAfter = cpuSeconds(server.child.pid!);
  const served = result.requests.total;
  const cpu = cpuBefore !== undefined && cpuAfter !== undefined && served > 0 ? Math.round(((cpuAfter - cpuBefore) * 1e7) / served) / 10 : undefined;
  return {
    rps: result.requests.average,
    p50: result.latency.p50,
    p99: result.latency.p99,
    non2xx: result.non2xx,
    errors: result.errors,
    ...(cpu === undefined ? {} : { cpuUsPerRequest: cpu }),
  };
}

/** A short unmeasured run so both servers are JIT-warm before the timed one. */
async function warmUp(url: string, route: 'health' | 'echo'): Promise<void> {
  await autocannon({
    url: route === 'health' ? `${url}/health` : `${url}/echo`,
    connections,
    duration: 1,
    method: route === 'health' ? 'GET' : 'POST',
    headers: route === 'echo' ? { 'content-type': 'application/json' } : undefined,
    body: route === 'echo' ? echoBody : undefined,
  });
}

const totals: Record<string, number[]> = {};
const cpuTotals: Record<string, number[]> = {};
for (let round = 1; round <= rounds; round++) {
  for (const route of ['health', 'echo'] as const) {
    // Alternate the order each round so neither side always runs on a warmer machine.
    const kinds: Kind[] = round % 2 === 1 ? ['h3', 'tessera', 'tessera-nolog'] : ['tessera-nolog', 'tessera', 'h3'];
    for (const kind of kinds) {
      const server = await startServer(kind);
      try {
        await check(server, kind);
        await warmUp(server.url, route);
        const r = await load(server, route);
        if (r.non2xx > 0 || r.errors > 0) throw new Error(`${kind} ${route}: ${r.non2xx} non-2xx, ${r.errors} errors`);
        (totals[`${kind}:${route}`] ??= []).push(r.rps);
        if (r.cpuUsPerRequest !== undefined) (cpuTotals[`${kind}:${route}`] ??= []).push(r.cpuUsPerRequest);
        process.stdout.write(`${JSON.stringify({ bench: 'http', round, kind, route, connections, durationS: duration, ...r })}\n`);
      } finally {
        await stopServer(server);
      }
    }
  }
}

const median = (xs: number[]): number => {
  const sorted = [...xs].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 === 1 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
};
const summary: Record<string, number> = {};
const pct = (ours: number, base: number): number => Math.round((1 - ours / base) * 1000) / 10;
for (const route of ['health', 'echo']) {
  const h3 = median(totals[`h3:${route}`]!);
  const tessera = median(totals[`tessera:${route}`]!);
  const nolog = median(totals[`tessera-nolog:${route}`]!);
  summary[`${route}H3Rps`] = Math.round(h3);
  summary[`${route}TesseraRps`] = Math.round(tessera);
  summary[`${route}TesseraNoLogRps`] = Math.round(nolog);
  summary[`${route}OverheadPct`] = pct(tessera, h3);
  summary[`${route}OverheadNoLogPct`] = pct(nolog, h3);
  // Best of the rounds: on a shared machine the least disturbed measurement of each server is the
  // closest to what its code costs (the medians above move with the neighbours' load).
  const best = (kind: Kind): number => Math.max(...totals[`${kind}:${route}`]!);
  summary[`${route}BestOverheadPct`] = pct(best('tessera'), best('h3'));
  summary[`${route}BestOverheadNoLogPct`] = pct(best('tessera-nolog'), best('h3'));
  const cpu = (kind: Kind): number | undefined => (cpuTotals[`${kind}:${route}`] ? median(cpuTotals[`${kind}:${route}`]!) : undefined);
  const [h3Cpu, tesseraCpu, nologCpu] = [cpu('h3'), cpu('tessera'), cpu('tessera-nolog')];
  if (h3Cpu !== undefined && tesseraCpu !== undefined && nologCpu !== undefined) {
    summary[`${route}H3CpuUs`] = h3Cpu;
    summary[`${route}TesseraCpuUs`] = tesseraCpu;
    summary[`${route}TesseraNoLogCpuUs`] = nologCpu;
    // The same "overhead" as for throughput: the share of h3's rate lost at the same CPU.
    summary[`${route}CpuOverheadPct`] = pct(h3Cpu, tesseraCpu);
    summary[`${route}CpuOverheadNoLogPct`] = pct(h3Cpu, nologCpu);
    const leastCpu = (kind: Kind): number => Math.min(...cpuTotals[`${kind}:${route}`]!);
    summary[`${route}LeastCpuOverheadPct`] = pct(leastCpu('h3'), leastCpu('tessera'));
    summary[`${route}LeastCpuOverheadNoLogPct`] = pct(leastCpu('h3'), leastCpu('tessera-nolog'));
  }
}
process.stdout.write(`${JSON.stringify({ summary })}\n`);
