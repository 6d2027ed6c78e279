import type { BitsetBlock, KernelRunner } from 'tessera-runtime/kernels';
import { InputError } from 'tessera-runtime/plugin';
import { andInPlace, andNotInPlace, popcount } from '../index/bitset.js';
import { evaluateFilter, type FilterNode } from '../query/filter.js';
import { circleBox, parseDistance, maxRadiusMeters, type LatLonBox } from '../index/geo-grid.js';
import { matchSet } from './match-set.js';
import type { Ranked } from './fetch.js';
import type { TextQuery } from './text-query.js';
import type { SearchIndex } from '../index/search-index.js';
import { segmentColumns } from '../index/segment-columns.js';

export interface GeoSpec {
  field?: string;
  lat?: number;
  lon?: number;
  radius?: string | number;
  boundingBox?: { topLeft: { lat: number; lon: number }; bottomRight: { lat: number; lon: number } };
}

const invalid = (message: string, path: string): InputError => new InputError('invalid_geo_query', message, { details: { path } });

function geoField(index: SearchIndex, requested: string | undefined): string {
  const fields = Object.entries(index.record.mappings)
    .filter(([, m]) => m.type === 'geo_point')
    .map(([f]) => f);
  if (requested !== undefined) {
    if (!fields.includes(requested)) throw invalid(`"${requested}" is not a geo_point field of index "${index.name}".`, 'geo.field');
    return requested;
  }
  if (fields.length !== 1)
    throw invalid(`Name the geo_point field in geo.field (the index has ${fields.length === 0 ? 'none' : fields.join(', ')}).`, 'geo.field');
  return fields[0]!;
}

function inRange(lat: unknown, lon: unknown, path: string): { lat: number; lon: number } {
  if (typeof lat !== 'number' || typeof lon !== 'number' || !(lat >= -90 && lat <= 90) || !(lon >= -180 && lon <= 180)) {
    throw invalid('lat must be in [-90, 90] and lon in [-180, 180].', path);
  }
  return { lat, lon };
}

/** A geo hit: the distance from the centre (or the box's centre), rounded to the centimetre. */
export const geoExtra = (r: GeoRanked): { distanceMeters: number } => ({ distanceMeters: Math.round(r.distance * 100) / 100 });

export interface GeoRanked extends Ranked {
  distance: number;
}

/**
 * The geo ranking phase: points within a radius of (lat, lon), or inside a bounding box (which may
 * cross the antimeridian: topLeft.lon > bottomRight.lon), nearest first, every one of them. The
 * grid prefilter picks the candidate cells; the geo kernel computes haversine distances; `q` (as
 * an exact match set) and `filter` narrow the candidates. Nearer is better: the score is in
 * (0, 1], 1 at the centre, for clients that sort or fuse by score.
 */
export async function rankGeo(
  index: SearchIndex,
  runner: KernelRunner,
  spec: GeoSpec,
  narrowing: { text?: TextQuery; filter?: FilterNode },
): Promise<{ total: number; ranked: GeoRanked[] }> {
  const field = geoField(index, spec.field);
  let centre: { lat: number; lon: number };
  let box: LatLonBox;
  let radiusMeters: number | undefined;
  if (spec.boundingBox) {
    const tl = inRange(spec.boundingBox.topLeft?.lat, spec.boundingBox.topLeft?.lon, 'geo.boundingBox.topLeft');
    const br = inRange(spec.boundingBox.bottomRight?.lat, spec.boundingBox.bottomRight?.lon, 'geo.boundingBox.bottomRight');
    if (tl.lat < br.lat) throw invalid('boundingBox.topLeft.lat must be >= bottomRight.lat.', 'geo.boundingBox');
    box = { minLat: br.lat, maxLat: tl.lat, minLon: tl.lon, maxLon: br.lon };
    const width = tl.lon <= br.lon ? br.lon - tl.lon : br.lon + 360 - tl.lon;
    let midLon = tl.lon + width / 2;
    if (midLon > 180) midLon -= 360;
    centre = { lat: (tl.lat + br.lat) / 2, lon: midLon };
  } else {
    centre = inRange(spec.lat, spec.lon, 'geo');
    radiusMeters = spec.radius === undefined ? undefined : parseDistance(spec.radius);
    if (radiusMeters === undefined) throw invalid('geo needs a radius ("5km", "300m" or metres) or a boundingBox.', 'geo.radius');
    if (radiusMeters > maxRadiusMeters) {
      throw invalid(
        `geo.radius is ${radiusMeters} m; the largest useful radius is ${maxRadiusMeters} m (about 20,038 km, half the Earth's circumference, which covers every point).`,
        'geo.radius',
      );
    }
    box = circleBox(centre.lat, centre.lon, radiusMeters);
  }

  const { text, filter: query } = narrowing;
  const found: Array<{ id: string; distance: number }> = [];
  for (const seg of index.segments) {
    const geo = seg.geo[field];
    if (!geo) continue;
    const allowed = geo.grid.candidates(box);
    if (seg.deletedCount > 0) andNotInPlace(allowed, seg.deleted);
    if (query) andInPlace(allowed, evaluateFilter(query, segmentColumns(seg), seg.data.docCount));
    if (text) andInPlace(allowed, matchSet(text.ast, seg.data, { fields: text.fields.map((f) => f.field) }));
    const candidates = popcount(allowed);
    if (candidates === 0) continue;
    let filter: BitsetBlock | undefined;
    try {
      filter = runner.loadBitset(allowed, seg.data.docCount);
      const result = await runner.geoNearest({
        block: geo.block,
        lat: centre.lat,
        lon: centre.lon,
        k: candidates,
        filter,
        ...(radiusMeters !== undefined ? { radiusMeters } : { box }),
      });
      result.ids.forEach((ord, i) => found.push({ id: seg.data.ids[ord]!, distance: result.distances[i]! }));
    } finally {
      if (filter) runner.release(filter);
    }
  }
  found.sort((a, b) => a.distance - b.distance || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
  return { total: found.length, ranked: found.map((r) => ({ id: r.id, score: 1 / (1 + r.distance / 1000), distance: r.distance })) };
}
