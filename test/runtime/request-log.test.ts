import { Writable } from 'node:stream';
import pino from 'pino';
import { describe, expect, it } from 'vitest';
import { RequestLog } from '../../runtime/request-log.js';

/** A pino logger writing into an array of lines, with a fixed clock so two lines can be compared. */
function capture(options: pino.LoggerOptions = {}): { log: pino.Logger; lines: string[] } {
  const lines: string[] = [];
  const sink = new Writable({
    write(chunk, _enc, done) {
      lines.push(String(chunk));
      done();
    },
  });
  // A plain object with `write` is what pino calls on the fast path; it stays synchronous here.
  const stream = { write: (line: string) => void sink.write(line) };
  const log = pino({ base: { pid: 4242 }, timestamp: () => ',"time":1700000000000', ...options }, stream as never);
  return { log, lines };
}

describe('the request log line', () => {
  it('is byte for byte what pino writes for the same fields, bindings included', () => {
    for (const [method, route, status, ms] of [
      ['GET', '/health', 200, 0.42],
      ['POST', '/v1/indexes/:name/"quoted"\\route', 404, 12],
      ['DELETE', '/x', 500, Number.NaN],
      ['GET', '/health', 200, 0.07],
      ['GET', '/health', 200, 0.1],
      ['GET', '/health', 200, 0],
      ['GET', '/health', 200, 99.99],
      ['GET', '/health', 200, 1234.5],
      ['GET', '/health', 200, 0.4234],
      ['GET', '/health', 200, 1e-7],
      ['GET', '/health', 200, 3e21],
    ] as const) {
      const a = capture();
      const b = capture();
      const childA = a.log.child({ plugin: 'search' });
      const childB = b.log.child({ plugin: 'search' });
      new RequestLog(childA, 'main').write('0f8fad5b-d9cb-469f-a165-70867728950e', method, route, status, ms);
      childB.info({ reqId: '0f8fad5b-d9cb-469f-a165-70867728950e', listener: 'main', method, route, status, ms }, 'request');
      expect(a.lines).toEqual(b.lines);
      expect(JSON.parse(a.lines[0]!)).toMatchObject({ msg: 'request', route, status, plugin: 'search' });
    }
  });

  it("writes pino's default epoch time, the same as pino would", () => {
    const lines: string[] = [];
    const log = pino({ base: { pid: 4242 } }, { write: (line: string) => void lines.push(line) } as never);
    const before = Date.now();
    new RequestLog(log, 'main').write('id-1', 'GET', '/health', 200, 0.5);
    new RequestLog(log, 'main').write('id-2', 'GET', '/health', 200, 0.5);
    log.info({ reqId: 'id-3', listener: 'main', method: 'GET', route: '/health', status: 200, ms: 0.5 }, 'request');
    const parsed = lines.map((l) => JSON.parse(l) as { time: number; reqId: string });
    for (const line of parsed) expect(line.time).toBeGreaterThanOrEqual(before);
    // Apart from the id and the time, the three lines are the same bytes.
    const strip = (l: string): string => l.replace(/"time":\d+/, '').replace(/"reqId":"[^"]+"/, '');
    expect(new Set(lines.map(strip)).size).toBe(1);
    expect(Object.keys(parsed[0]!)).toEqual(Object.keys(parsed[2]!));
  });

  it('goes through pino when the logger would change the line (a mixin), and is silent below its level', () => {
    const mixed = capture({ mixin: () => ({ region: 'eu' }) });
    new RequestLog(mixed.log, 'main').write('id-1', 'GET', '/health', 200, 1);
    expect(JSON.parse(mixed.lines[0]!)).toMatchObject({ region: 'eu', reqId: 'id-1', msg: 'request' });
    const quiet = capture({ level: 'warn' });
    new RequestLog(quiet.log, 'main').write('id-2', 'GET', '/health', 200, 1);
    expect(quiet.lines).toEqual([]);
  });
});
