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

export function healthBody(startedAt: number): HealthBody {
  const uptimeMs = Date.now() - startedAt;
  const memory = process.memoryUsage();
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
