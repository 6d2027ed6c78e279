import { colorBin, type Bitmap } from './bitmap.js';

/**
 * Image statistics the motif classifier reads (motif-classifier.ts documents how). All are
 * computed on the downscaled bitmap (at most 128 px a side), so they do not depend on resolution.
 */
export interface MotifFeatures {
  /** Largest per-channel standard deviation over the whole image (0-255). */
  colorStd: number;
  /** Share of the most common 4-bit colour bin, and of the three most common together. */
  top1Share: number;
  top3Share: number;
  /** 4-bit colour bins holding at least 0.2% of the pixels. */
  distinctColors: number;
  /** Share of horizontally (X) and vertically (Y) adjacent pixel pairs that differ by more than EDGE in some channel. */
  edgeX: number;
  edgeY: number;
  /** Mean over adjacent pairs of the largest channel difference. */
  meanStep: number;
  /** Mean absolute second difference of luma along rows and columns: 0 on a linear ramp. */
  roughness: number;
  /** Mean per-row (and per-column) largest channel standard deviation: 0 when every row (column) is one colour. */
  rowStd: number;
  colStd: number;
  /** Share of X edges lying on columns that have an edge in at least 60% of rows (and Y edges on such rows). */
  edgeLinesX: number;
  edgeLinesY: number;
  /** Connected regions (4-neighbours) of pixels unlike the most common colour. */
  blobs: number;
  /** Coefficient of variation of the blobs' pixel counts. */
  blobSizeCv: number;
  /** Mean share of its bounding box a blob fills (a disc fills ~0.79, a square 1). */
  blobFill: number;
  /** Mean ratio of a blob's longer bounding-box side to its shorter one. */
  blobAspect: number;
}

/** A channel difference above this (0-255) is an edge. */
export const EDGE = 40;
const LINE_COVERAGE = 0.6;
/** Blobs smaller than this many pixels are anti-aliasing crumbs, not shapes. */
const MIN_BLOB = 4;

export function motifFeatures(bitmap: Bitmap): MotifFeatures {
  const { width: w, height: h, data } = bitmap;
  const n = w * h;
  const lum = new Float32Array(n);
  const bins = new Map<number, number>();
  const sum = [0, 0, 0];
  const sq = [0, 0, 0];
  for (let i = 0; i < n; i++) {
    const at = i * 4;
    lum[i] = 0.299 * data[at]! + 0.587 * data[at + 1]! + 0.114 * data[at + 2]!;
    for (let c = 0; c < 3; c++) {
      sum[c]! += data[at + c]!;
      sq[c]! += data[at + c]! ** 2;
    }
    const bin = colorBin(data, at);
    bins.set(bin, (bins.get(bin) ?? 0) + 1);
  }
  const colorStd = Math.max(...[0, 1, 2].map((c) => Math.sqrt(Math.max(0, sq[c]! / n - (sum[c]! / n) ** 2))));
  const counts = [...bins.entries()].sort((a, b) => b[1] - a[1]);
  const top1Share = counts[0]![1] / n;
  const top3Share = counts.slice(0, 3).reduce((s, [, c]) => s + c, 0) / n;
  const distinctColors = counts.filter(([, c]) => c / n >= 0.002).length;

  const step = (a: number, b: number): number =>
    Math.max(Math.abs(data[a]! - data[b]!), Math.abs(data[a + 1]! - data[b + 1]!), Math.abs(data[a + 2]! - data[b + 2]!));
  const edgesAtColumn = new Uint32Array(Math.max(1, w - 1));
  const edgesAtRow = new Uint32Array(Math.max(1, h - 1));
  let edgesX = 0;
  let edgesY = 0;
  let steps = 0;
  let stepSum = 0;
  let rough = 0;
  let roughCount = 0;
  for (let y = 0; y < h; y++) {
    for (let x = 0; x < w; x++) {
      const i = y * w + x;
      if (x + 1 < w) {
        const d = step(i * 4, (i + 1) * 4);
        stepSum += d;
        steps++;
        if (d > EDGE) {
          edgesX++;
          edgesAtColumn[x]!++;
        }
        if (x + 2 < w) {
          rough += Math.abs(lum[i + 2]! - 2 * lum[i + 1]! + lum[i]!);
          roughCount++;
        }
      }
      if (y + 1 < h) {
        const d = step(i * 4, (i + w) * 4);
        stepSum += d;
        steps++;
        if (d > EDGE) {
          edgesY++;
          edgesAtRow[y]!++;
        }
        if (y + 2 < h) {
          rough += Math.abs(lum[i + 2 * w]! - 2 * lum[i + w]! + lum[i]!);
          roughCount++;
        }
      }
    }
  }
  const linesShare = (perLine: Uint32Array, across: number, total: number): number => {
    if (total === 0) return 0;
    let onLines = 0;
    for (const c of perLine) if (c >= LINE_COVERAGE * across) onLines += c;
    return onLines / total;
  };

  return {
    colorStd,
    top1Share,
    top3Share,
    distinctColors,
    edgeX: edgesX / Math.max(1, (w - 1) * h),
    edgeY: edgesY / Math.max(1, w * (h - 1)),
    meanStep: steps === 0 ? 0 : stepSum / steps,
    roughness: roughCount === 0 ? 0 : rough / roughCount,
    rowStd: lineStd(data, w, h, 'row'),
    colStd: lineStd(data, w, h, 'column'),
    edgeLinesX: linesShare(edgesAtColumn, h, edgesX),
    edgeLinesY: linesShare(edgesAtRow, w, edgesY),
    ...blobStats(data, w, h, counts[0]![0]),
  };
}

/** Mean over rows (or columns) of the largest per-channel standard deviation within the line. */
function lineStd(data: Uint8Array, w: number, h: number, along: 'row' | 'column'): number {
  const lines = along === 'row' ? h : w;
  const length = along === 'row' ? w : h;
  let total = 0;
  for (let l = 0; l < lines; l++) {
    let worst = 0;
    for (let c = 0; c < 3; c++) {
      let s = 0;
      let s2 = 0;
      for (let k = 0; k < length; k++) {
        const v = data[(along === 'row' ? l * w + k : k * w + l) * 4 + c]!;
        s += v;
        s2 += v * v;
      }
      worst = Math.max(worst, Math.sqrt(Math.max(0, s2 / length - (s / length) ** 2)));
    }
    total += worst;
  }
  return total / lines;
}

/** Regions of pixels unlike the background (the most common bin's colour), by flood fill. */
function blobStats(data: Uint8Array, w: number, h: number, backgroundBin: number): Pick<MotifFeatures, 'blobs' | 'blobSizeCv' | 'blobFill' | 'blobAspect'> {
  const bg = [((backgroundBin >> 8) & 15) * 16 + 8, ((backgroundBin >> 4) & 15) * 16 + 8, (backgroundBin & 15) * 16 + 8];
  const n = w * h;
  const fg = new Uint8Array(n);
  for (let i = 0; i < n; i++) {
    const at = i * 4;
    fg[i] = Math.max(Math.abs(data[at]! - bg[0]!), Math.abs(data[at + 1]! - bg[1]!), Math.abs(data[at + 2]! - bg[2]!)) > EDGE ? 1 : 0;
  }
  const sizes: number[] = [];
  let fill = 0;
  let aspect = 0;
  const stack: number[] = [];
  for (let start = 0; start < n; start++) {
    if (fg[start] !== 1) continue;
    fg[start] = 2;
    stack.push(start);
    let size = 0;
    let x0 = w;
    let x1 = 0;
    let y0 = h;
    let y1 = 0;
    while (stack.length > 0) {
      const i = stack.pop()!;
      const x = i % w;
      const y = (i - x) / w;
      size++;
      if (x < x0) x0 = x;
      if (x > x1) x1 = x;
      if (y < y0) y0 = y;
      if (y > y1) y1 = y;
      const next = [x > 0 ? i - 1 : -1, x + 1 < w ? i + 1 : -1, y > 0 ? i - w : -1, y + 1 < h ? i + w : -1];
      for (const j of next) {
        if (j >= 0 && fg[j] === 1) {
          fg[j] = 2;
          stack.push(j);
        }
      }
    }
    if (size < MIN_BLOB) continue;
    const bw = x1 - x0 + 1;
    const bh = y1 - y0 + 1;
    sizes.push(size);
    fill += size / (bw * bh);
    aspect += Math.max(bw, bh) / Math.min(bw, bh);
  }
  if (sizes.length === 0) return { blobs: 0, blobSizeCv: 0, blobFill: 0, blobAspect: 0 };
  const mean = sizes.reduce((a, b) => a + b, 0) / sizes.length;
  const variance = sizes.reduce((a, b) => a + (b - mean) ** 2, 0) / sizes.length;
  return { blobs: sizes.length, blobSizeCv: Math.sqrt(variance) / mean, blobFill: fill / sizes.length, blobAspect: aspect / sizes.length };
}
