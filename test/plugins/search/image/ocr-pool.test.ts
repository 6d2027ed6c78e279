import { afterAll, describe, expect, it } from 'vitest';
import { OcrFailure, OcrPool } from '../../../../plugins/search/image/ocr-pool.js';
import { noImageMagick, renderText } from '../../../../bench/image/imagemagick.js';

describe.skipIf(noImageMagick !== '')('the OCR pool', () => {
  const pool = new OcrPool({ size: 1, timeoutMs: 20_000 });
  afterAll(() => pool.close());
  const image = renderText('Lighthouse keeper', { size: 32 });

  it('starts a worker on first use and keeps it warm', async () => {
    const first = await pool.recognize(image);
    expect(first.words.map((w) => w.text)).toEqual(['Lighthouse', 'keeper']);
    const restarts = pool.restarts;
    expect((await pool.recognize(image)).text).toBe('Lighthouse keeper');
    expect(pool.restarts).toBe(restarts);
  });

  it('fails only the recognition whose worker dies, then serves the next one on a new worker', async () => {
    const inFlight = pool.recognize(image);
    // One turn of the event loop: the job is posted to the warm worker, whose answer takes a round
    // trip of several milliseconds (a fixed sleep raced a fast recognition and sometimes lost).
    await new Promise((r) => setImmediate(r));
    expect(pool.busy).toBe(1);
    pool.recycle();
    await expect(inFlight).rejects.toBeInstanceOf(OcrFailure);
    await expect(inFlight).rejects.toMatchObject({ code: 'ocr_worker_failed' });
    expect(pool.restarts).toBe(1);
    expect((await pool.recognize(image)).words.map((w) => w.text)).toEqual(['Lighthouse', 'keeper']);
  });

  it('makes waiting callers take turns on the one worker', async () => {
    const results = await Promise.all([pool.recognize(image), pool.recognize(image), pool.recognize(image)]);
    expect(results.map((r) => r.text)).toEqual(['Lighthouse keeper', 'Lighthouse keeper', 'Lighthouse keeper']);
    expect(pool.queued).toBe(0);
    expect(pool.busy).toBe(0);
  });
});
