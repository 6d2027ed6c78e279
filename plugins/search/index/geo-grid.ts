import { add, emptySet, type Bitset } from './bitset.js';

const EARTH_RADIUS_M = 6371008.8;
const METERS_PER_DEGREE = (Math.PI * EARTH_RADIUS_M) / 180;

/** A box in degrees; minLon > maxLon means it crosses the antimeridian. */
export interface LatLonBox {
  minLat: number;
  maxLat: number;
  minLon: number;
  maxLon: number;
}

/**
 * A 1 degree x 1 degree grid over a segment's points: a radius or box query reads only the cells
 * its bounding box touches, so it does not look at every point of the segment.
 */
export class GeoGrid {
  private readonly cells = new Map<number, number[]>();
  private readonly count: number;

  constructor(lats: Float64Array, lons: Float64Array, present: Bitset, count: number) {
    this.count = count;
    for (let ord = 0; ord < count; ord++) {
      if ((present[ord >>> 5]! & (1 << (ord & 31))) === 0) continue;
      const key = cellKey(lats[ord]!, lons[ord]!);
      let list = this.cells.get(key);
      if (!list) this.cells.set(key, (list = []));
      list.push(ord);
    }
  }

  /** Ordinals in the cells a box touches (a superset of the points inside it). */
  candidates(box: LatLonBox): Bitset {
    const set = emptySet(this.count);
    const lat0 = Math.floor(box.minLat);
    const lat1 = Math.min(Math.floor(box.maxLat), 89);
    const lonRanges: Array<[number, number]> =
      box.minLon <= box.maxLon
        ? [[box.minLon, box.maxLon]]
        : [
            [box.minLon, 180],
            [-180, box.maxLon],
          ];
    for (let la = Math.max(lat0, -90); la <= lat1; la++) {
      for (const [from, to] of lonRanges) {
        for (let lo = Math.floor(from); lo <= Math.min(Math.floor(to), 179); lo++) {
          const list = this.cells.get(la * 1000 + lo);
          if (list) for (const ord of list) add(set, ord);
        }
      }
    }
    return set;
  }
}

function cellKey(lat: number, lon: number): number {
  return Math.min(Math.floor(lat), 89) * 1000 + Math.min(Math.floor(lon), 179);
}

/**
 * The bounding box of a circle, in degrees. Near a pole (the circle reaches it) every longitude is
 * in; otherwise the longitude span widens with latitude and may wrap across the antimeridian.
 */
export function circleBox(lat: number, lon: number, radiusMeters: number): LatLonBox {
  const dLat = radiusMeters / METERS_PER_DEGREE;
  const minLat = lat - dLat;
  const maxLat = lat + dLat;
  if (minLat <= -90 || maxLat >= 90) return { minLat: Math.max(minLat, -90), maxLat: Math.min(maxLat, 90), minLon: -180, maxLon: 180 };
  const widest = Math.max(Math.abs(minLat), Math.abs(maxLat));
  const dLon = dLat / Math.cos((widest * Math.PI) / 180);
  if (dLon >= 180) return { minLat, maxLat, minLon: -180, maxLon: 180 };
  const wrap = (x: number): number => (x < -180 ? x + 360 : x > 180 ? x - 360 : x);
  return { minLat, maxLat, minLon: wrap(lon - dLon), maxLon: wrap(lon + dLon) };
}

/** "5km", "300m", "1.5 mi" or a number of metres. */
/** Half the Earth's circumference: a radius this large already covers the whole globe. */
export const maxRadiusMeters = 20_037_509;

export function parseDistance(value: string | number): number | undefined {
  if (typeof value === 'number') return Number.isFinite(value) && value >= 0 ? value : undefined;
  const match = /^\s*(\d+(?:\.\d+)?(?:e[+-]?\d+)?)\s*(m|km|mi|yd|ft)?\s*$/i.exec(value);
  if (!match) return undefined;
  const factor = { m: 1, km: 1000, mi: 1609.344, yd: 0.9144, ft: 0.3048 }[(match[2] ?? 'm').toLowerCase() as 'm']!;
  return Number(match[1]) * factor;
}
