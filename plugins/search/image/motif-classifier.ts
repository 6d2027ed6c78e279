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
 * | text | OCR read at least one word of 3+ letters at or above the word-confidence threshold, and the image is not photographic (>= 16 distinct colours with the top three under 60%) |
 * | dots | >= 4 blobs unlike the background, alike in size (CV < 0.5), round (aspect < 1.5) and filling 60-95% of their box |
 * | photo | none of the above, and >= 16 distinct 4-bit colours |
 *
 * An image none of these fit (a flat logo without words) gets no motif. Text over another motif
 * (a photo with a caption) is reported as a second motif, `text`, when OCR read at least two words
 * of 3+ letters at confidence >= 85: OCR "reads" short words in the texture of photographs.
 */
export function classifyMotif(f: MotifFeatures, words: TextEvidence): Motif[] {
  const primary = primaryMotif(f, words.words);
  if (primary === undefined) return [];
  return primary !== 'text' && words.strongWords >= 2 ? [primary, 'text'] : [primary];
}

/** What OCR read, as the classifier counts it: words of 3+ letters, and those at confidence >= 85. */
export interface TextEvidence {
  words: number;
  strongWords: number;
}

/** Counts OCR words of at least 3 letters (shorter ones are most of what OCR "reads" in photographs). */
export function textEvidence(words: ReadonlyArray<{ text: string; confidence: number }>): TextEvidence {
  const real = words.filter((w) => (w.text.match(/\p{L}/gu)?.length ?? 0) >= 3);
  return { words: real.length, strongWords: real.filter((w) => w.confidence >= 85).length };
}

/** Many colours, none dominant: a photograph, whatever OCR believes it read in it. */
const photographic = (f: MotifFeatures): boolean => f.distinctColors >= 16 && f.top3Share < 0.6;

function primaryMotif(f: MotifFeatures, ocrWords: number): Motif | undefined {
  const edges = (f.edgeX + f.edgeY) / 2;
  if (f.colorStd < 6 || (f.top1Share >= 0.98 && edges < 0.005)) return 'solid';
  if (edges < 0.01 && f.meanStep < 6 && f.roughness < 2) return 'gradient';
  if (f.rowStd < 10 && f.colStd > 25 && f.edgeY > 0) return 'horizontal_stripes';
  if (f.colStd < 10 && f.rowStd > 25 && f.edgeX > 0) return 'vertical_stripes';
  if (f.edgeX > 0 && f.edgeY > 0 && f.edgeLinesX >= 0.7 && f.edgeLinesY >= 0.7) return 'checks';
  if (ocrWords >= 1 && !photographic(f)) return 'text';
  if (f.blobs >= 4 && f.blobSizeCv < 0.5 && f.blobAspect < 1.5 && f.blobFill >= 0.6 && f.blobFill <= 0.95) return 'dots';
  if (f.distinctColors >= 16) return 'photo';
  return undefined;
}
