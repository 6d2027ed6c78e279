/**
 * The Piscina worker that decodes an image and computes its colours and motif statistics, off the
 * event loop: decoding a large JPEG takes hundreds of milliseconds. The caller has already checked
 * the header's pixel count (image-header.ts), so decoding cannot be a decompression bomb.
 */
import { Jimp, ResizeStrategy } from 'jimp';
import { dominantColors, type ColorShare } from './dominant-colors.js';
import { motifFeatures, type MotifFeatures } from './motif-features.js';

export interface AnalysisTask {
  bytes: Uint8Array;
}

export type AnalysisResult =
  | { ok: true; width: number; height: number; colors: ColorShare[]; features: MotifFeatures; ms: { decode: number; colors: number; motifs: number } }
  | { ok: false; reason: string };

/** Statistics are computed on the image scaled to fit this many pixels a side. */
export const ANALYSIS_SIDE = 128;

export default async function analyse(task: AnalysisTask): Promise<AnalysisResult> {
  const t0 = performance.now();
  let image;
  try {
    image = await Jimp.fromBuffer(Buffer.from(task.bytes.buffer, task.bytes.byteOffset, task.bytes.byteLength));
  } catch (err) {
    return { ok: false, reason: (err as Error).message };
  }
  const { width, height } = image.bitmap;
  const scale = Math.min(1, ANALYSIS_SIDE / Math.max(width, height));
  if (scale < 1) {
    image.resize({ w: Math.max(1, Math.round(width * scale)), h: Math.max(1, Math.round(height * scale)), mode: ResizeStrategy.BILINEAR });
  }
  const bitmap = {
    width: image.bitmap.width,
    height: image.bitmap.height,
    data: new Uint8Array(image.bitmap.data.buffer, image.bitmap.data.byteOffset, image.bitmap.data.byteLength),
  };
  const t1 = performance.now();
  const colors = dominantColors(bitmap);
  const t2 = performance.now();
  const features = motifFeatures(bitmap);
  const t3 = performance.now();
  return { ok: true, width, height, colors, features, ms: { decode: t1 - t0, colors: t2 - t1, motifs: t3 - t2 } };
}
