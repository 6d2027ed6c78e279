import { topKBegin, topKOffer, topKFinish } from "./top-k";
import { bitsetHas } from "./bitset";

// Great-circle nearest neighbours. Points are stored as unit vectors (x, y, z) in f64, plus their
// latitude and longitude in degrees for bounding boxes. For two points the haversine term is
// h = sin^2(dlat/2) + cos(lat1) cos(lat2) sin^2(dlon/2) = chord^2 / 4, where chord is the straight
// line between the unit vectors, so ranking by chord^2 is ranking by haversine distance with no
// trigonometry per point and no cancellation for close points (the host converts the k winners to
// metres with 2R asin(chord / 2)). Scores are -chord^2 in an f64 heap.
//
// Box: minLat..maxLat inclusive; minLon > maxLon means the box crosses the antimeridian.

export function geoNearest(
  xsPtr: usize, ysPtr: usize, zsPtr: usize, latsPtr: usize, lonsPtr: usize, start: i32, end: i32,
  qx: f64, qy: f64, qz: f64, maxChordSq: f64,
  useBox: i32, minLat: f64, maxLat: f64, minLon: f64, maxLon: f64,
  filterPtr: usize, heapPtr: usize, k: i32,
): i32 {
  topKBegin<f64>(heapPtr, k);
  const wraps = minLon > maxLon;
  for (let i = start; i < end; i++) {
    const at = <usize>i << 3;
    const dx = load<f64>(xsPtr + at) - qx;
    const dy = load<f64>(ysPtr + at) - qy;
    const dz = load<f64>(zsPtr + at) - qz;
    const chordSq = dx * dx + dy * dy + dz * dz;
    if (chordSq > maxChordSq) continue;
    if (useBox != 0) {
      const lat = load<f64>(latsPtr + at);
      if (lat < minLat || lat > maxLat) continue;
      const lon = load<f64>(lonsPtr + at);
      if (wraps ? (lon < minLon && lon > maxLon) : (lon < minLon || lon > maxLon)) continue;
    }
    if (!bitsetHas(filterPtr, <u32>i)) continue;
    topKOffer<f64>(-chordSq, <u32>i);
  }
  return topKFinish<f64>();
}

/** Unit vectors for points given in degrees; run once when points are loaded. */
export function geoPrepare(
  latsPtr: usize, lonsPtr: usize, count: i32, xsPtr: usize, ysPtr: usize, zsPtr: usize,
): void {
  const toRad = Math.PI / 180;
  for (let i = 0; i < count; i++) {
    const at = <usize>i << 3;
    const lat = load<f64>(latsPtr + at) * toRad;
    const lon = load<f64>(lonsPtr + at) * toRad;
    const c = Math.cos(lat);
    store<f64>(xsPtr + at, c * Math.cos(lon));
    store<f64>(ysPtr + at, c * Math.sin(lon));
    store<f64>(zsPtr + at, Math.sin(lat));
  }
}
