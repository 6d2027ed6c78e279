/**
 * Image metadata throughput: images/s and p50 latency per stage (decode, colours, motifs, OCR) at
 * 1 and 2 workers, and peak RSS with 16 images in flight. Runs the route's pipeline (ImageAnalyzer:
 * the decoder thread pool and the tesseract workers, all in this process, so RSS counts them).
 * Each image's answer is checked before anything is timed. Prints JSON.
 *
 *   npm run bench:image [-- --rounds 3]
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { ImageAnalyzer } from '../../plugins/search/image/image-analyzer.js';
import { imageLimitsSchema } from '../../plugins/search/image/image-options.js';
import { motifRenderers, noImageMagick, renderText } from './imagemagick.js';
import { photoDir } from './motif-set.js';

if (noImageMagick) {
  console.error(noImageMagick);
  process.exit(1);
}
const roundsAt = process.argv.indexOf('--rounds');
const rounds = roundsAt >= 0 ? Number(process.argv[roundsAt + 1]) : 3;

const images: Array<{ kind: string; bytes: Buffer; check: (m: Awaited<ReturnType<ImageAnalyzer['analyse']>>['metadata']) => boolean }> = [
  {
    kind: 'text 1000x120',
    bytes: renderText('Shipping notice for order 7731 leaves the warehouse today', { size: 30 }),
    check: (m) => m.motifs[0] === 'text' && (m.ocr?.words.includes('warehouse') ?? false),
  },
  {
    kind: 'stripes 320x240',
    bytes: motifRenderers.horizontal_stripes('red', 'white'),
    check: (m) => m.motifs[0] === 'horizontal_stripes' && m.colors[0] === 'red',
  },
  { kind: 'photo 1920x1200', bytes: readFileSync(path.join(photoDir, 'GreenMeadow.jpg')), check: (m) => m.motifs[0] === 'photo' && m.colors[0] === 'green' },
];

const p50 = (xs: number[]): number => {
  const s = [...xs].sort((a, b) => a - b);
  return Math.round(s[Math.floor((s.length - 1) / 2)]! * 10) / 10;
};

async function measure(workers: number) {
  const analyzer = new ImageAnalyzer(imageLimitsSchema.parse({ workers, maxQueue: 64 }));
  try {
    // Warm-up doubles as the correctness check: every worker starts, every answer is right.
    for (const image of images) {
      const results = await Promise.all(Array.from({ length: workers }, () => analyzer.analyse(image.bytes)));
      for (const r of results)
        if (!image.check(r.metadata)) throw new Error(`${image.kind}: wrong answer ${JSON.stringify(r.metadata.motifs)} ${r.metadata.colors}`);
    }
    const perKind: Record<string, Record<string, number | string>> = {};
    for (const image of images) {
      const stages: Record<string, number[]> = { decode: [], colors: [], motifs: [], ocr: [], total: [] };
      const n = rounds * 2 * workers;
      const started = performance.now();
      // 2 x workers in flight: every worker busy, one image waiting for each.
      let next = 0;
      await Promise.all(
        Array.from({ length: 2 * workers }, async () => {
          while (next < n) {
            next++;
            const { timings } = await analyzer.analyse(image.bytes);
            for (const k of Object.keys(stages)) stages[k]!.push(timings[k as keyof typeof timings]);
          }
        }),
      );
      const seconds = (performance.now() - started) / 1000;
      perKind[image.kind] = {
        imagesPerSecond: Math.round((n / seconds) * 100) / 100,
        ...Object.fromEntries(Object.entries(stages).map(([k, v]) => [`${k}P50Ms`, p50(v)])),
      };
    }
    return perKind;
  } finally {
    await analyzer.close();
  }
}

async function peakMemory(concurrent: number) {
  const analyzer = new ImageAnalyzer(imageLimitsSchema.parse({ workers: 2, maxQueue: concurrent }));
  const before = process.memoryUsage().rss;
  let peak = before;
  const timer = setInterval(() => (peak = Math.max(peak, process.memoryUsage().rss)), 20);
  try {
    const mix = Array.from({ length: concurrent }, (_, i) => images[i % images.length]!);
    const results = await Promise.all(mix.map((image) => analyzer.analyse(image.bytes)));
    results.forEach((r, i) => {
      if (!mix[i]!.check(r.metadata)) throw new Error(`${mix[i]!.kind}: wrong answer under load`);
    });
  } finally {
    clearInterval(timer);
    await analyzer.close();
  }
  return { concurrent, workers: 2, rssBeforeMb: Math.round(before / 1048576), peakRssMb: Math.round(peak / 1048576) };
}

const one = await measure(1);
const two = await measure(2);
const memory = await peakMemory(16);
const speedup = Object.fromEntries(
  Object.keys(one).map((k) => [k, Math.round(((two[k]!.imagesPerSecond as number) / (one[k]!.imagesPerSecond as number)) * 100) / 100]),
);
console.log(JSON.stringify({ rounds, workers1: one, workers2: two, speedup2vs1: speedup, memory }, null, 1));
