import { createReadStream, existsSync } from 'node:fs';
import { createInterface } from 'node:readline';
import { createGunzip } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createKernelRunner, reference, type GeoResult, type KernelRunner } from '../../kernels/src/index.js';
import { prng } from './support/prng.js';

const SIZES = [0, 1, 3, 4, 5, 17, 1023, 10_000];
const CITIES = new URL('../../../shared/data/geo/cities1000.jsonl.gz', import.meta.url);

/**
 * The kernel ranks by chord length, the reference by textbook haversine: the same order up to
 * rounding. Distances must agree to a millimetre; ids must agree except where two reference
 * distances are within that tolerance of each other.
 */
function expectSameNearest(actual: GeoResult, expected: GeoResult): void {
  expect(actual.ids.length).toBe(expected.ids.length);
  const tol = (d: number): number => 1e-3 + 1e-9 * d;
  for (let i = 0; i < actual.ids.length; i++) {
    expect(Math.abs(actual.distances[i]! - expected.distances[i]!)).toBeLessThanOrEqual(tol(expected.distances[i]!));
    const d = expected.distances[i]!;
    const tiedBefore = i > 0 && d - expected.distances[i - 1]! <= tol(d);
    const tiedAfter = i + 1 < expected.ids.length && expected.distances[i + 1]! - d <= tol(d);
    if (!tiedBefore && !tiedAfter) expect(actual.ids[i]).toBe(expected.ids[i]);
  }
}

function randomPoints(rand: () => number, count: number): { lats: Float64Array; lons: Float64Array } {
  return {
    lats: Float64Array.from({ length: count }, () => Math.asin(2 * rand() - 1) * (180 / Math.PI)),
    lons: Float64Array.from({ length: count }, () => rand() * 360 - 180),
  };
}

describe.each(['release', 'debug'] as const)('geo nearest (%s build)', (build) => {
  let runner: KernelRunner;
  beforeAll(() => {
    runner = createKernelRunner({ threads: 2, build });
  });
  afterAll(() => runner.close());

  it.each(SIZES)('matches the haversine reference on %i random points: plain, radius, box, antimeridian box, filter', async (count) => {
    const rand = prng(count + 17);
    const { lats, lons } = randomPoints(rand, count);
    const block = runner.loadGeoPoints(lats, lons);
    const allowed = new Set(Array.from({ length: count }, (_, i) => i).filter(() => rand() < 0.6));
    const filter = runner.loadBitsetFromIds(allowed, count);
    const lat = 48.85;
    const lon = 2.35;
    const cases = [
      {},
      { radiusMeters: 3_000_000 },
      { box: { minLat: 30, maxLat: 70, minLon: -20, maxLon: 40 } },
      { box: { minLat: -60, maxLat: 60, minLon: 150, maxLon: -150 } },
      { radiusMeters: 8_000_000, box: { minLat: -10, maxLat: 80, minLon: -100, maxLon: 100 } },
    ];
    for (const extra of cases) {
      for (const k of [1, 10, count + 5]) {
        expectSameNearest(await runner.geoNearest({ block, lat, lon, k, ...extra }), reference.geoNearest({ lats, lons, lat, lon, k, ...extra }));
      }
      expectSameNearest(
        await runner.geoNearest({ block, lat, lon, k: 10, filter, ...extra }),
        reference.geoNearest({ lats, lons, lat, lon, k: 10, allowed: (i) => allowed.has(i), ...extra }),
      );
    }
    runner.release(block);
    runner.release(filter);
  });

  it('orders duplicate points by id and measures known distances', async () => {
    // Paris, London twice, New York.
    const block = runner.loadGeoPoints([48.8566, 51.5074, 51.5074, 40.7128], [2.3522, -0.1278, -0.1278, -74.006]);
    const top = await runner.geoNearest({ block, lat: 48.8566, lon: 2.3522, k: 4 });
    expect([...top.ids]).toEqual([0, 1, 2, 3]);
    expect(top.distances[0]).toBeLessThan(1e-6);
    expect(top.distances[1]).toBe(top.distances[2]);
    expect(top.distances[1]! / 1000).toBeCloseTo(343.5, 0); // Paris to London, about 343.5 km
    expect(top.distances[3]! / 1000).toBeCloseTo(5837, -1); // Paris to New York, about 5,837 km
    expect(plain(await runner.geoNearest({ block, lat: 48.8566, lon: 2.3522, k: 4, radiusMeters: 400_000 }))).toEqual([0, 1, 2]);
    runner.release(block);
  });

  it('gives identical answers inline and on the pool', async () => {
    const { lats, lons } = randomPoints(prng(3), 50_000);
    const block = runner.loadGeoPoints(lats, lons);
    const q = { block, lat: -33.87, lon: 151.21, k: 30, radiusMeters: 5_000_000 };
    const inline = await runner.geoNearest({ ...q, mode: 'inline' });
    const pooled = await runner.geoNearest({ ...q, mode: 'pool' });
    expect([...pooled.ids]).toEqual([...inline.ids]);
    expect([...pooled.distances]).toEqual([...inline.distances]);
    runner.release(block);
  });

  it.skipIf(!existsSync(CITIES))('finds the same nearest cities as the reference on 135k GeoNames places', async () => {
    const lats: number[] = [];
    const lons: number[] = [];
    const lines = createInterface({ input: createReadStream(CITIES).pipe(createGunzip()) });
    for await (const line of lines) {
      const city = JSON.parse(line) as { lat: number; lon: number };
      lats.push(city.lat);
      lons.push(city.lon);
    }
    const block = runner.loadGeoPoints(lats, lons);
    for (const [lat, lon] of [
      [52.52, 13.405],
      [35.68, 139.69],
      [-22.91, -43.17],
      [64.14, -21.94],
    ] as const) {
      expectSameNearest(await runner.geoNearest({ block, lat, lon, k: 25 }), reference.geoNearest({ lats, lons, lat, lon, k: 25 }));
    }
    runner.release(block);
  });

  it('rejects out-of-range coordinates and bad radii with kernel_invalid_input', async () => {
    expect(() => runner.loadGeoPoints([91], [0])).toThrow(expect.objectContaining({ code: 'kernel_invalid_input' }));
    expect(() => runner.loadGeoPoints([0], [Number.NaN])).toThrow(expect.objectContaining({ code: 'kernel_invalid_input' }));
    expect(() => runner.loadGeoPoints([0, 1], [0])).toThrow(expect.objectContaining({ code: 'kernel_invalid_input' }));
    const block = runner.loadGeoPoints([0], [0]);
    for (const q of [
      { lat: 0, lon: 181, k: 1 },
      { lat: 0, lon: 0, k: 0 },
      { lat: 0, lon: 0, k: 1, radiusMeters: -1 },
      { lat: 0, lon: 0, k: 1, box: { minLat: 10, maxLat: 0, minLon: 0, maxLon: 1 } },
    ]) {
      await expect(runner.geoNearest({ block, ...q })).rejects.toMatchObject({ code: 'kernel_invalid_input' });
    }
    runner.release(block);
  });
});

const plain = (r: GeoResult): number[] => [...r.ids];
