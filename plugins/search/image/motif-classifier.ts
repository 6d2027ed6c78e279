import type { MotifFeatures } from './motif-features.js';

export const motifClasses = ['solid', 'gradient', 'horizontal_stripes', 'vertical_stripes', 'checks', 'dots', 'text', 'photo'] as const;
export type Motif = (typeof motifClasses)[number];

/**
 * The motif classifier: fixed rules over image statistics (motif-features.ts), tried in order;
 * the first that holds is the image's motif. Thresholds were set on images rendered by ImageMagick
 * and checked on photographs; docs/image-metadata.md gives the confusion matrices.
 *
 * | motif | holds when |
 * |---|---|
 * | solid | every channel's deviation is < 6, or one 4-bit colour bin holds >= 98% of pixels with edges on < 0.5% of adjacent pairs |
 * | gradient | colours vary (deviation >= 6) but smoothly: edges on < 1% of adjacent pairs, mean step < 6, roughness < 2 |
 * | horizontal_stripes | rows are near-uniform (mean row deviation < 10) while columns vary (> 25), with edges between rows |
 * | vertical_stripes | the same with rows and columns swapped |
 * | checks | edges both ways, and >= 70% of each lie on full lines (columns/rows crossed by edges in >= 60% of the image) |
 * | text | OCR read at least one word (>= 2 letters) at or above the word-confidence threshold |
 * | dots | >= 4 blobs unlike the background, alike in size (CV < 0.5), round (aspect < 1.5) and filling 60-95% of their box |
 * | photo | none of the above, and >= 16 distinct 4-bit colours |
 *
 * An image none of these fit (a flat logo without words) gets no motif. Text over another motif
 * (a photo with a caption) is reported as a second motif, `text`.
 */
export function classifyMotif(f: MotifFeatures, ocrWords: number): Motif[] {
  const primary = primaryMotif(f, ocrWords);
  if (primary === undefined) return [];
  return primary !== 'text' && ocrWords >= 2 ? [primary, 'text'] : [primary];
}

function primaryMotif(f: MotifFeatures, ocrWords: number): Motif | undefined {
  const edges = (f.edgeX + f.edgeY) / 2;
  if (f.colorStd < 6 || (f.top1Share >= 0.98 && edges < 0.005)) return 'solid';
  if (edges < 0.01 && f.meanStep < 6 && f.roughness < 2) return 'gradient';
  if (f.rowStd < 10 && f.colStd > 25 && f.edgeY > 0) return 'horizontal_stripes';
  if (f.colStd < 10 && f.rowStd > 25 && f.edgeX > 0) return 'vertical_stripes';
  if (f.edgeX > 0 && f.edgeY > 0 && f.edgeLinesX >= 0.7 && f.edgeLinesY >= 0.7) return 'checks';
  if (ocrWords >= 1) return 'text';
  if (f.blobs >= 4 && f.blobSizeCv < 0.5 && f.blobAspect < 1.5 && f.blobFill >= 0.6 && f.blobFill <= 0.95) return 'dots';
  if (f.distinctColors >= 16) return 'photo';
  return undefined;
}
