import type { BitsetBlock, KernelRunner } from 'tessera-runtime/kernels';
import { InputError } from 'tessera-runtime/plugin';
import { andInPlace, andNotInPlace, popcount } from '../index/bitset.js';
import { evaluateFilter, type FilterNode } from '../query/filter.js';
import { circleBox, parseDistance, maxRadiusMeters, type LatLonBox } from '../index/geo-grid.js';
import { matchSet } from './match-set.js';
import { compileProjection, projectSource } from './projection.js';
import { keywordHighlighter, parseIndexQuery, resolveFields, type Hit } from './search-keyword.js';
import type { SearchIndex } from '../index/search-index.js';
import { segmentColumns } from '../index/segment-columns.js';

export interface GeoSpec {
  field?: string;
  lat?: number;
  lon?: number;
  radius?: string | number;
  boundingBox?: { topLeft: { lat: number; lon: number }; bottomRight: { lat: number; lon: number } };
}

export interface GeoSearchQuery {
  geo: GeoSpec;
  q?: string;
  fields?: string[];
  operator?: 'AND' | 'OR';
  minimumShouldMatch?: string | number;
  filter?: FilterNode;
  size: number;
  from: number;
  highlight?: boolean;
  projection?: Record<string, 0 | 1>;
  select?: string[];
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

/**
 * Geo search: points within a radius of (lat, lon), or inside a bounding box (which may cross the
 * antimeridian: topLeft.lon > bottomRight.lon), nearest first, each hit with `distanceMeters`
 * (from the centre, or from the box's centre). The grid prefilter picks the candidate cells; the
 * geo kernel computes haversine distances; `q` and `filter` narrow the candidates exactly.
 */
export async function searchGeo(
  index: SearchIndex,
  runner: KernelRunner,
  query: GeoSearchQuery,
): Promise<{ total: number; hits: Array<Hit & { distanceMeters: number }> }> {
  const field = geoField(index, query.geo.field);
  const projection = compileProjection(query.projection, query.select);
  let centre: { lat: number; lon: number };
  let box: LatLonBox;
  let radiusMeters: number | undefined;
  if (query.geo.boundingBox) {
    const tl = inRange(query.geo.boundingBox.topLeft?.lat, query.geo.boundingBox.topLeft?.lon, 'geo.boundingBox.topLeft');
    const br = inRange(query.geo.boundingBox.bottomRight?.lat, query.geo.boundingBox.bottomRight?.lon, 'geo.boundingBox.bottomRight');
    if (tl.lat < br.lat) throw invalid('boundingBox.topLeft.lat must be >= bottomRight.lat.', 'geo.boundingBox');
    box = { minLat: br.lat, maxLat: tl.lat, minLon: tl.lon, maxLon: br.lon };
    const width = tl.lon <= br.lon ? br.lon - tl.lon : br.lon + 360 - tl.lon;
    let midLon = tl.lon + width / 2;
    if (midLon > 180) midLon -= 360;
    centre = { lat: (tl.lat + br.lat) / 2, lon: midLon };
  } else {
    centre = inRange(query.geo.lat, query.geo.lon, 'geo');
    radiusMeters = query.geo.radius === undefined ? undefined : parseDistance(query.geo.radius);
    if (radiusMeters === undefined) throw invalid('geo needs a radius ("5km", "300m" or metres) or a boundingBox.', 'geo.radius');
    if (radiusMeters > maxRadiusMeters) {
      throw invalid(
        `geo.radius is ${radiusMeters} m; the largest useful radius is ${maxRadiusMeters} m (about 20,038 km, half the Earth's circumference, which covers every point).`,
        'geo.radius',
      );
    }
    box = circleBox(centre.lat, centre.lon, radiusMeters);
  }

  const textFields = query.q ? resolveFields(index, query.fields) : [];
  const ast = query.q ? parseIndexQuery(index, query, textFields) : undefined;

  const found: Array<{ id: string; distance: number }> = [];
  for (const seg of index.segments) {
    const geo = seg.geo[field];
    if (!geo) continue;
    const allowed = geo.grid.candidates(box);
    if (seg.deletedCount > 0) andNotInPlace(allowed, seg.deleted);
    if (query.filter) andInPlace(allowed, evaluateFilter(query.filter, segmentColumns(seg), seg.data.docCount));
    if (ast) andInPlace(allowed, matchSet(ast, seg.data, { fields: textFields.map((f) => f.field) }));
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
  const highlight = query.q && query.highlight !== false ? keywordHighlighter(index, query) : undefined;
  const hits: Array<Hit & { distanceMeters: number }> = [];
  for (const r of found.slice(query.from, query.from + query.size)) {
    const source = index.getDocument(r.id);
    if (!source) continue;
    // Nearer is better: a score in (0, 1], 1 at the centre, for clients that sort or fuse by score.
    hits.push({
      id: r.id,
      score: 1 / (1 + r.distance / 1000),
      source: projectSource(source, projection),
      highlight: highlight ? highlight(source) : {},
      distanceMeters: Math.round(r.distance * 100) / 100,
    });
  }
  return { total: found.length, hits };
}
