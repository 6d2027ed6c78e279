import { existsSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { gunzipSync } from 'node:zlib';

/** ../shared/data/geo/cities1000.jsonl.gz (GeoNames, CC BY 4.0), beside the repository. */
export const CITIES_FILE = fileURLToPath(new URL('../../../../shared/data/geo/cities1000.jsonl.gz', import.meta.url));

export interface City {
  id: number;
  name: string;
  altName: string | null;
  country: string;
  adminCode: string | null;
  population: number;
  lat: number;
  lon: number;
}

export const citiesAvailable = (): boolean => existsSync(CITIES_FILE);

export function loadCities(countries: readonly string[]): City[] {
  const wanted = new Set(countries);
  return gunzipSync(readFileSync(CITIES_FILE))
    .toString('utf8')
    .split('\n')
    .filter((l) => l.trim() !== '')
    .map((l) => JSON.parse(l) as City)
    .filter((c) => wanted.has(c.country));
}

export const cityId = (c: City): string => `city:${c.id}`;
export const regionId = (c: City): string => `region:${c.country}.${c.adminCode ?? '00'}`;
export const countryId = (c: City): string => `country:${c.country}`;

/**
 * A real graph from GeoNames: each city is an entity (its document id is the city's) located in
 * its first-level administrative region, which is part of its country.
 */
export function geonamesGraph(cities: readonly City[]) {
  const entities = new Map<string, { id: string; name: string; type: string; aliases?: string[]; docIds?: string[] }>();
  const triples: Array<{ subject: string; predicate: string; object: string; weight?: number }> = [];
  for (const c of cities) {
    entities.set(cityId(c), { id: cityId(c), name: c.name, type: 'city', ...(c.altName ? { aliases: [c.altName] } : {}), docIds: [String(c.id)] });
    if (!entities.has(regionId(c))) {
      entities.set(regionId(c), { id: regionId(c), name: `${c.country}-${c.adminCode ?? '00'}`, type: 'region' });
      triples.push({ subject: regionId(c), predicate: 'part_of', object: countryId(c) });
    }
    entities.set(countryId(c), { id: countryId(c), name: c.country, type: 'country' });
    triples.push({ subject: cityId(c), predicate: 'located_in', object: regionId(c) });
  }
  return { entities: [...entities.values()], triples };
}
