import type { BitsetBlock } from './bitset-block.js';
import { KernelInvalidInputError } from './errors.js';
import type { GeoBlock } from './geo-block.js';
import { assertOpen, runTasks, splitRange, usePool, withPinned, withScratch, type ExecutionMode, type KernelContext } from './kernel-context.js';
import { mergeTopK64, readTopK64, topK64Bytes } from './top-k.js';
import { assertFinite, assertK, assertKnownKeys, assertRange } from './validate.js';

/** Mean Earth radius (IUGG), metres. */
export const EARTH_RADIUS_M = 6371008.8;

export interface GeoBox {
  minLat: number;
  maxLat: number;
  /** minLon > maxLon selects a box that crosses the antimeridian. */
  minLon: number;
  maxLon: number;
}

export interface GeoQuery {
  block: GeoBlock;
  lat: number;
  lon: number;
  k: number;
  /** Only points within this great-circle distance. */
  radiusMeters?: number;
  box?: GeoBox;
  filter?: BitsetBlock;
  /** @default 'auto' */
  mode?: ExecutionMode;
}

/** Nearest first; ties (equal distance) by id ascending. */
export interface GeoResult {
  ids: Uint32Array;
  distances: Float64Array;
}

function validate(ctx: KernelContext, q: GeoQuery): void {
  assertOpen(ctx);
  assertKnownKeys('geo query', q, ['block', 'lat', 'lon', 'k', 'radiusMeters', 'box', 'filter', 'mode']);
  ctx.blocks.assertUsable(q.block, 'block');
  assertRange('lat', q.lat, -90, 90);
  assertRange('lon', q.lon, -180, 180);
  assertK(q.k);
  if (q.radiusMeters !== undefined) {
    assertFinite('radiusMeters', q.radiusMeters);
    if (q.radiusMeters < 0) throw new KernelInvalidInputError(`radiusMeters must be >= 0, got ${q.radiusMeters}`);
  }
  if (q.box) {
    assertKnownKeys('box', q.box, ['minLat', 'maxLat', 'minLon', 'maxLon']);
    assertRange('box.minLat', q.box.minLat, -90, 90);
    assertRange('box.maxLat', q.box.maxLat, -90, 90);
    assertRange('box.minLon', q.box.minLon, -180, 180);
    assertRange('box.maxLon', q.box.maxLon, -180, 180);
    if (q.box.minLat > q.box.maxLat) throw new KernelInvalidInputError('box.minLat must be <= box.maxLat');
  }
  if (q.filter) {
    ctx.blocks.assertUsable(q.filter, 'filter');
    if (q.filter.count < q.block.count) {
      throw new KernelInvalidInputError(`filter covers ${q.filter.count} ids but the block has ${q.block.count}`);
    }
  }
}

export const unitVector = (lat: number, lon: number): [number, number, number] => {
  const la = (lat * Math.PI) / 180;
  const lo = (lon * Math.PI) / 180;
  return [Math.cos(la) * Math.cos(lo), Math.cos(la) * Math.sin(lo), Math.sin(la)];
};

/** Great-circle distance for a chord between unit vectors: 2R asin(chord / 2). */
export const chordToMeters = (chordSq: number): number => 2 * EARTH_RADIUS_M * Math.asin(Math.min(1, Math.sqrt(chordSq) / 2));

/**
 * The k points nearest to (lat, lon), optionally within a radius and/or a box. The kernel ranks by
 * squared chord length in f64 (the same order as haversine distance), which converts to metres.
 */
export async function geoNearest(ctx: KernelContext, q: GeoQuery): Promise<GeoResult> {
  validate(ctx, q);
  const { block } = q;
  if (block.count === 0) return { ids: new Uint32Array(0), distances: new Float64Array(0) };
  const [qx, qy, qz] = unitVector(q.lat, q.lon);
  const radius = q.radiusMeters;
  const maxChordSq = radius === undefined || radius >= Math.PI * EARTH_RADIUS_M ? Number.POSITIVE_INFINITY : (2 * Math.sin(radius / (2 * EARTH_RADIUS_M))) ** 2;
  const box = q.box;
  const keep = Math.min(q.k, block.count);
  const pooled = usePool(ctx, q.mode ?? 'auto', block.count * 40);
  const ranges = pooled ? splitRange(block.count, ctx.pool!.threads) : [[0, block.count] as [number, number]];
  return withPinned(ctx, [block, q.filter], () =>
    withScratch(
      ctx,
      ranges.map(() => topK64Bytes(keep)),
      async (heaps) => {
        const tasks = ranges.map(([start, end], i) => ({
          kernel: 'geoNearest' as const,
          args: [
            block.xs.offset,
            block.ys.offset,
            block.zs.offset,
            block.lats.offset,
            block.lons.offset,
            start,
            end,
            qx,
            qy,
            qz,
            maxChordSq,
            box ? 1 : 0,
            box?.minLat ?? 0,
            box?.maxLat ?? 0,
            box?.minLon ?? 0,
            box?.maxLon ?? 0,
            q.filter ? q.filter.words.offset : 0,
            heaps[i]!.offset,
            keep,
          ],
        }));
        const counts = await runTasks(ctx, tasks, pooled);
        const top = mergeTopK64(
          counts.map((n, i) => readTopK64(ctx.memory, heaps[i]!.offset, keep, n)),
          keep,
        );
        const distances = top.scores.map((score) => chordToMeters(-score));
        return { ids: top.ids, distances };
      },
    ),
  );
}
