/**
 * The `/health` body: the union of what seed 000 (`uptimeMs`, `storage`, `memory`) and seed 001
 * (`status`, `uptime` in seconds) show, so clients of both products read it unchanged.
 */
export interface HealthBody {
  ok: true;
  status: 'ok';
  uptime: number;
  uptimeMs: number;
  storage: 'lmdb';
  memory: { rssMb: number; heapUsedMb: number };
}

/**
 * process.memoryUsage() walks the V8 heap spaces and reads /proc (tens of microseconds, more on a
 * big heap): sampled at most every 250 ms, so a health probe in a tight loop stays cheap.
 */
let sampledAt = 0;
let sample: NodeJS.MemoryUsage | undefined;
function memoryUsage(now: number): NodeJS.MemoryUsage {
  if (!sample || now - sampledAt >= 250) {
    sample = process.memoryUsage();
    sampledAt = now;
  }
  return sample;
}

export function healthBody(startedAt: number): HealthBody {
  const now = Date.now();
  const uptimeMs = now - startedAt;
  const memory = memoryUsage(now);
  return {
    ok: true,
    status: 'ok',
    uptime: Math.round(uptimeMs / 10) / 100,
    uptimeMs,
    storage: 'lmdb',
    memory: {
      rssMb: Math.round((memory.rss / 1_048_576) * 10) / 10,
      heapUsedMb: Math.round((memory.heapUsed / 1_048_576) * 10) / 10,
    },
  };
}
