import { allocAll, type Block } from './block.js';
import { assertOpen, type KernelContext } from './kernel-context.js';
import type { Region } from './region-allocator.js';
import { assertLength, assertRange } from './validate.js';

/** Points as f64 unit vectors (xs, ys, zs) plus degrees (lats, lons) for bounding boxes. */
export interface GeoBlock extends Block {
  readonly kind: 'geo';
  readonly count: number;
  readonly xs: Region;
  readonly ys: Region;
  readonly zs: Region;
  readonly lats: Region;
  readonly lons: Region;
}

export function loadGeoPoints(ctx: KernelContext, lats: ArrayLike<number>, lons: ArrayLike<number>): GeoBlock {
  assertOpen(ctx);
  assertLength('lons', lons, lats.length);
  for (let i = 0; i < lats.length; i++) {
    assertRange(`lats[${i}]`, lats[i]!, -90, 90);
    assertRange(`lons[${i}]`, lons[i]!, -180, 180);
  }
  const count = lats.length;
  const [xs, ys, zs, latsR, lonsR] = allocAll(ctx.allocator, Array(5).fill(count * 8)) as [Region, Region, Region, Region, Region];
  ctx.memory.f64.set(lats, latsR.offset >>> 3);
  ctx.memory.f64.set(lons, lonsR.offset >>> 3);
  ctx.kernels.geoPrepare(latsR.offset, lonsR.offset, count, xs.offset, ys.offset, zs.offset);
  return Object.freeze({
    kind: 'geo',
    count,
    xs,
    ys,
    zs,
    lats: latsR,
    lons: lonsR,
    regions: [xs, ys, zs, latsR, lonsR],
  });
}
