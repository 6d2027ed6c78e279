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

/**
 * Dominant colours: a histogram of 4-bit-per-channel bins over the (downscaled) bitmap; each bin
 * takes the palette name nearest to its mean colour; shares add up per name. Names under
 * MIN_COLOR_SHARE are dropped; the rest come by share, largest first.
 */
export function dominantColors(bitmap: Bitmap): ColorShare[] {
  const bins = new Map<number, { n: number; r: number; g: number; b: number }>();
  const { data } = bitmap;
  let total = 0;
  for (let at = 0; at < data.length; at += 4) {
    if (data[at + 3]! < OPAQUE) continue;
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
