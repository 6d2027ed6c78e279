import { rmSync } from 'node:fs';
import { Writable } from 'node:stream';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { openEventsDb, PersistedEventLog } from '../../runtime/events/event-log.js';
import { createLogger } from '../../runtime/logger.js';
import { Store } from '../../runtime/store.js';
import { tempDir } from '../helpers/app.js';

/** Settles with 'stuck' when `p` has not settled after `ms`: a follower that missed a wake-up never does. */
const within = <T>(p: Promise<T>, ms: number): Promise<T | 'stuck'> =>
  Promise.race([p, new Promise<'stuck'>((resolve) => setTimeout(() => resolve('stuck'), ms).unref())]);

describe('EventLog.follow', () => {
  let dir: string;
  let store: Store;
  let log: PersistedEventLog;
  let controller: AbortController;
  beforeEach(() => {
    controller = new AbortController();
    dir = tempDir();
    store = Store.open(dir);
    const silent = createLogger({ level: 'silent', destination: new Writable({ write: (_c, _e, done) => done() }) });
    log = new PersistedEventLog('p', openEventsDb(store.namespace('runtime')), silent);
  });
  afterEach(async () => {
    controller.abort();
    await store.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('delivers an entry committed while the follower was busy with the previous one, with no later append to wake it', async () => {
    const follower = log.follow({ after: 0, signal: controller.signal })[Symbol.asyncIterator]();
    await log.append('job.proposed', { n: 1 });
    const first = await follower.next();
    expect(first.value).toMatchObject({ id: 1, type: 'job.proposed', data: { n: 1 } });
    // The consumer is handling entry 1 (the generator is suspended at its yield) when entry 2 commits.
    await log.append('job.proposed', { n: 2 });
    const second = await within(follower.next(), 5000);
    expect(second).toEqual({ done: false, value: expect.objectContaining({ id: 2, type: 'job.proposed', data: { n: 2 } }) });
  });

  it('delivers an entry of its types committed while it was busy, behind entries of other types', async () => {
    const follower = log.follow({ after: 0, signal: controller.signal, types: ['job.proposed'] })[Symbol.asyncIterator]();
    await log.append('job.proposed', { n: 1 });
    expect((await follower.next()).value).toMatchObject({ id: 1 });
    await log.append('job.proposed', { n: 2 });
    await log.append('comment.posted', { n: 3 });
    const second = await within(follower.next(), 5000);
    expect(second).toEqual({ done: false, value: expect.objectContaining({ id: 2, data: { n: 2 } }) });
  });
});
