import { createReadStream, existsSync } from 'node:fs';
import readline from 'node:readline';
import { fileURLToPath } from 'node:url';
import { createGunzip } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, json, postJson, type TestApp } from '../../helpers/app.js';

const CITIES = fileURLToPath(new URL('../../../../shared/data/geo/cities1000.jsonl.gz', import.meta.url));
const available = existsSync(CITIES);
const R = 6371008.8;

interface City {
  id: string;
  name: string;
  country: string;
  population: number;
  lat: number;
  lon: number;
}

function haversine(lat1: number, lon1: number, lat2: number, lon2: number): number {
  const toRad = Math.PI / 180;
  const dLat = (lat2 - lat1) * toRad;
  const dLon = (lon2 - lon1) * toRad;
  const a = Math.sin(dLat / 2) ** 2 + Math.cos(lat1 * toRad) * Math.cos(lat2 * toRad) * Math.sin(dLon / 2) ** 2;
  return 2 * R * Math.asin(Math.min(1, Math.sqrt(a)));
}

describe.skipIf(!available)('geo search on cities1000 against brute-force haversine', () => {
  let t: TestApp;
  let base: string;
  const cities: City[] = [];

  beforeAll(async () => {
    const rl = readline.createInterface({ input: createReadStream(CITIES).pipe(createGunzip()) });
    for await (const line of rl) {
      const c = JSON.parse(line) as Record<string, unknown>;
      cities.push({
        id: String(c.id),
        name: String(c.name),
        country: String(c.country),
        population: Number(c.population),
        lat: Number(c.lat),
        lon: Number(c.lon),
      });
    }
    t = await createTestApp({ listeners: [{ name: 'search', port: 0, plugins: ['search'] }], plugins: { search: {} } });
    base = `${t.url()}/v1/indexes`;
    await postJson(base, {
      name: 'cities',
      mappings: { name: { type: 'text' }, country: { type: 'keyword' }, population: { type: 'number' }, location: { type: 'geo_point' } },
    });
    for (let i = 0; i < cities.length; i += 40_000) {
      // GeoJSON order on the way in: [lon, lat].
      const batch = cities
        .slice(i, i + 40_000)
        .map((c) => ({ id: c.id, name: c.name, country: c.country, population: c.population, location: [c.lon, c.lat] }));
      const res = await json(await postJson(`${base}/cities/documents`, batch));
      expect(res.errors).toEqual([]);
    }
  }, 120_000);
  afterAll(() => t?.stop());

  const within = (lat: number, lon: number, radius: number, keep: (c: City) => boolean = () => true): Map<string, number> => {
    const out = new Map<string, number>();
    for (const c of cities) {
      if (!keep(c)) continue;
      const d = haversine(lat, lon, c.lat, c.lon);
      // Points within a metre of the boundary may fall either way by float rounding: leave them out.
      if (Math.abs(d - radius) < 1) continue;
      if (d < radius) out.set(c.id, d);
    }
    return out;
  };

  const cases = [
    { name: 'Paris, 25 km', lat: 48.8566, lon: 2.3522, radius: '25km', metres: 25_000 },
    { name: 'Suva, across the date line, 300 km', lat: -18.1416, lon: 178.4419, radius: '300km', metres: 300_000 },
    { name: 'Longyearbyen, near the pole, 1,500 km', lat: 78.2232, lon: 15.6267, radius: 1_500_000, metres: 1_500_000 },
    { name: 'Quito, on the equator, 800 m', lat: -0.1807, lon: -78.4678, radius: '800m', metres: 800 },
  ];
  for (const c of cases) {
    it(`finds exactly the places within a radius: ${c.name}`, async () => {
      const expected = within(c.lat, c.lon, c.metres);
      const res = await json(
        await postJson(`${base}/cities/search`, { mode: 'geo', geo: { lat: c.lat, lon: c.lon, radius: c.radius }, size: 1000, select: ['id'] }),
      );
      const got = new Map<string, number>(res.hits.map((h: { id: string; distanceMeters: number }) => [h.id, h.distanceMeters]));
      for (const id of got.keys())
        if (!expected.has(id))
          expect(Math.abs(haversine(c.lat, c.lon, cities.find((x) => x.id === id)!.lat, cities.find((x) => x.id === id)!.lon) - c.metres)).toBeLessThan(1);
      expect([...expected.keys()].filter((id) => !got.has(id))).toEqual([]);
      expect(res.total).toBeGreaterThanOrEqual(expected.size);
      for (const [id, d] of expected) expect(Math.abs(got.get(id)! - d)).toBeLessThan(1);
      const distances = res.hits.map((h: { distanceMeters: number }) => h.distanceMeters);
      expect(distances).toEqual([...distances].sort((a: number, b: number) => a - b));
    });
  }

  it('finds exactly the places in a bounding box that crosses the date line', async () => {
    const box = { topLeft: { lat: -10, lon: 175 }, bottomRight: { lat: -25, lon: -175 } };
    const expected = cities
      .filter((c) => c.lat <= -10 && c.lat >= -25 && (c.lon >= 175 || c.lon <= -175))
      .map((c) => c.id)
      .sort();
    expect(expected.length).toBeGreaterThan(10);
    const res = await json(await postJson(`${base}/cities/search`, { mode: 'geo', geo: { boundingBox: box }, size: 1000, select: ['id'] }));
    expect(res.total).toBe(expected.length);
    expect(res.hits.map((h: { id: string }) => h.id).sort()).toEqual(expected);
  });

  it('combines geo with q and filter', async () => {
    const res = await json(
      await postJson(`${base}/cities/search`, {
        mode: 'geo',
        q: 'saint',
        geo: { lat: 48.8566, lon: 2.3522, radius: '50km' },
        filter: { range: { population: { gte: 10_000 } } },
        size: 1000,
      }),
    );
    const expected = within(48.8566, 2.3522, 50_000, (c) => c.population >= 10_000 && /\bsaint\b/i.test(c.name));
    expect(res.hits.map((h: { id: string }) => h.id).sort()).toEqual([...expected.keys()].sort());
    expect(res.hits[0].highlight.name[0]).toContain('<mark>Saint</mark>');
  });

  it('answers invalid_geo_query for a bad centre, radius or field', async () => {
    for (const geo of [
      { lat: 91, lon: 0, radius: '1km' },
      { lat: 0, lon: 0, radius: 'far' },
      { field: 'name', lat: 0, lon: 0, radius: 5 },
    ]) {
      const res = await postJson(`${base}/cities/search`, { mode: 'geo', geo });
      expect(res.status).toBe(400);
      expect((await json(res)).error.code).toBe('invalid_geo_query');
    }
  });
});
