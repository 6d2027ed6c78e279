import { EARTH_RADIUS_M, type GeoBox, type GeoResult } from '../geo-nearest.js';

const rad = (deg: number): number => (deg * Math.PI) / 180;

/** The textbook haversine formula, in metres. */
export function haversineMeters(lat1: number, lon1: number, lat2: number, lon2: number): number {
  const dLat = rad(lat2 - lat1);
  const dLon = rad(lon2 - lon1);
  const h = Math.sin(dLat / 2) ** 2 + Math.cos(rad(lat1)) * Math.cos(rad(lat2)) * Math.sin(dLon / 2) ** 2;
  return 2 * EARTH_RADIUS_M * Math.asin(Math.min(1, Math.sqrt(h)));
}

export function inBox(box: GeoBox, lat: number, lon: number): boolean {
  if (lat < box.minLat || lat > box.maxLat) return false;
  return box.minLon <= box.maxLon ? lon >= box.minLon && lon <= box.maxLon : lon >= box.minLon || lon <= box.maxLon;
}

export interface ReferenceGeoQuery {
  lats: ArrayLike<number>;
  lons: ArrayLike<number>;
  lat: number;
  lon: number;
  k: number;
  radiusMeters?: number;
  box?: GeoBox;
  allowed?: (id: number) => boolean;
}

/** Distance to every point, filter, sort nearest first (id ascending on ties), keep k. */
export function geoNearest(q: ReferenceGeoQuery): GeoResult {
  const hits: { id: number; distance: number }[] = [];
  for (let i = 0; i < q.lats.length; i++) {
    const distance = haversineMeters(q.lat, q.lon, q.lats[i]!, q.lons[i]!);
    if (q.radiusMeters !== undefined && distance > q.radiusMeters) continue;
    if (q.box && !inBox(q.box, q.lats[i]!, q.lons[i]!)) continue;
    if (q.allowed && !q.allowed(i)) continue;
    hits.push({ id: i, distance });
  }
  hits.sort((a, b) => a.distance - b.distance || a.id - b.id);
  const top = hits.slice(0, q.k);
  return { ids: Uint32Array.from(top, (h) => h.id), distances: Float64Array.from(top, (h) => h.distance) };
}
