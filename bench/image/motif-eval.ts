/**
 * The motif classifier's confusion matrices: on the generated set (bench/image/motif-set.ts) and
 * on photographs (Debian mate-backgrounds). Runs the route's own pipeline (ImageAnalyzer: decoder
 * thread + OCR) and prints JSON: per set the matrix (expected -> predicted counts), accuracy and
 * the misclassified images.
 */
import { ImageAnalyzer } from '../../plugins/search/image/image-analyzer.js';
import { imageLimitsSchema } from '../../plugins/search/image/image-options.js';
import { motifClasses } from '../../plugins/search/image/motif-classifier.js';
import { noImageMagick } from './imagemagick.js';
import { generatedMotifSet, photographSet, photoDir, type LabelledImage } from './motif-set.js';

async function evaluate(analyzer: ImageAnalyzer, set: LabelledImage[]) {
  const labels = [...motifClasses, 'none'];
  const matrix: Record<string, Record<string, number>> = Object.fromEntries(labels.map((l) => [l, Object.fromEntries(labels.map((p) => [p, 0]))]));
  const wrong: Array<{ name: string; expected: string; predicted: string }> = [];
  for (const image of set) {
    const { metadata } = await analyzer.analyse(image.bytes());
    const predicted = metadata.motifs[0] ?? 'none';
    matrix[image.expected]![predicted]!++;
    if (predicted !== image.expected) wrong.push({ name: image.name, expected: image.expected, predicted });
  }
  const used = labels.filter((l) => Object.values(matrix[l]!).some((n) => n > 0) || labels.some((e) => matrix[e]![l]! > 0));
  const compact = Object.fromEntries(
    used.filter((e) => Object.values(matrix[e]!).some((n) => n > 0)).map((e) => [e, Object.fromEntries(used.map((p) => [p, matrix[e]![p]!]))]),
  );
  return {
    images: set.length,
    accuracy: set.length === 0 ? null : Math.round(((set.length - wrong.length) / set.length) * 1000) / 1000,
    matrix: compact,
    wrong,
  };
}

if (noImageMagick) {
  console.error(noImageMagick);
  process.exit(1);
}
const analyzer = new ImageAnalyzer(imageLimitsSchema.parse({ workers: 1 }));
try {
  const generated = await evaluate(analyzer, generatedMotifSet());
  const photos = photographSet();
  const photographs = photos.length > 0 ? await evaluate(analyzer, photos) : { skipped: `no photographs in ${photoDir}: apt-get install mate-backgrounds` };
  console.log(JSON.stringify({ generated, photographs }, null, 1));
} finally {
  await analyzer.close();
}
