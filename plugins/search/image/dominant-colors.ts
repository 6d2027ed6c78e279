import { colorBin, OPAQUE, type Bitmap } from './bitmap.js';
import { nearestPaletteIndex, palette } from './palette.js';

/** A named colour of an image with its share of the (opaque) pixels and the mean colour it stands for. */
export interface ColorShare {
  name: string;
  /** 0..1, rounded to 3 decimals. */
  share: number;
  hex: string;
}

/** A colour under this share of the pixels is not reported (anti-aliasing, noise). */
export const MIN_COLOR_SHARE = 0.05;
/** At most this many colours per image. */
export const MAX_COLORS = 5;

/** A pixel differing by more than this from both opposite neighbours, which differ more from each other, is a blend between them. */
const BLEND = 24;

/**
 * Pixels that are blends of their neighbours (anti-aliased edges, more of them once downscaled):
 * they lie between two unlike neighbours on a row or a column. Counting them would report a
 * third colour (pink around red dots on white). When they are most of the image (fine texture in
 * a photograph) every pixel counts instead.
 */
function blendMask(bitmap: Bitmap): Uint8Array | undefined {
  const { width: w, height: h, data } = bitmap;
  const mask = new Uint8Array(w * h);
  const d = (a: number, b: number): number =>
    Math.max(Math.abs(data[a * 4]! - data[b * 4]!), Math.abs(data[a * 4 + 1]! - data[b * 4 + 1]!), Math.abs(data[a * 4 + 2]! - data[b * 4 + 2]!));
  // Between two unlike neighbours, and unlike each: a thin line (both neighbours alike) is not a blend.
  const between = (i: number, a: number, b: number): boolean => {
    const da = d(i, a);
    const db = d(i, b);
    return da > BLEND && db > BLEND && d(a, b) > Math.max(da, db);
  };
  let blends = 0;
  for (let y = 0; y < h; y++) {
    for (let x = 0; x < w; x++) {
      const i = y * w + x;
      const row = x > 0 && x + 1 < w && between(i, i - 1, i + 1);
      const column = y > 0 && y + 1 < h && between(i, i - w, i + w);
      if (row || column) {
        mask[i] = 1;
        blends++;
      }
    }
  }
  return blends > 0 && blends < (w * h) / 2 ? mask : undefined;
}

/**
 * Dominant colours: a histogram of 4-bit-per-channel bins over the (downscaled) bitmap, blends at
 * edges left out; each bin takes the palette name nearest to its mean colour; shares add up per
 * name. Names under MIN_COLOR_SHARE are dropped; the rest come by share, largest first.
 */
export function dominantColors(bitmap: Bitmap): ColorShare[] {
  const bins = new Map<number, { n: number; r: number; g: number; b: number }>();
  const { data } = bitmap;
  const blends = blendMask(bitmap);
  let total = 0;
  for (let at = 0; at < data.length; at += 4) {
    if (data[at + 3]! < OPAQUE || blends?.[at / 4] === 1) continue;
    const key = colorBin(data, at);
    let bin = bins.get(key);
    if (!bin) bins.set(key, (bin = { n: 0, r: 0, g: 0, b: 0 }));
    bin.n++;
    bin.r += data[at]!;
    bin.g += data[at + 1]!;
    bin.b += data[at + 2]!;
    total++;
  }
  if (total === 0) return [];
  const named = new Map<number, { n: number; r: number; g: number; b: number }>();
  for (const bin of bins.values()) {
    const i = nearestPaletteIndex(bin.r / bin.n, bin.g / bin.n, bin.b / bin.n);
    let sum = named.get(i);
    if (!sum) named.set(i, (sum = { n: 0, r: 0, g: 0, b: 0 }));
    sum.n += bin.n;
    sum.r += bin.r;
    sum.g += bin.g;
    sum.b += bin.b;
  }
  return [...named.entries()]
    .map(([i, s]) => ({ name: palette[i]!.name, share: s.n / total, hex: hex(s.r / s.n, s.g / s.n, s.b / s.n) }))
    .filter((c) => c.share >= MIN_COLOR_SHARE)
    .sort((a, b) => b.share - a.share || a.name.localeCompare(b.name))
    .slice(0, MAX_COLORS)
    .map((c) => ({ ...c, share: Math.round(c.share * 1000) / 1000 }));
}

function hex(r: number, g: number, b: number): string {
  return `#${[r, g, b].map((c) => Math.round(c).toString(16).padStart(2, '0')).join('')}`;
}
