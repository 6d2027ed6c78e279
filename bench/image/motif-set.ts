import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import type { Motif } from '../../plugins/search/image/motif-classifier.js';
import { motifRenderers, renderText } from './imagemagick.js';

export interface LabelledImage {
  name: string;
  expected: Motif;
  bytes: () => Buffer;
}

const pairs: Array<[string, string]> = [
  ['red', 'white'],
  ['navy', 'yellow'],
  ['black', 'white'],
  ['green', 'pink'],
  ['orange', 'purple'],
  ['blue', 'lightgray'],
  ['brown', 'beige'],
  ['teal', 'white'],
];
const solids = ['red', 'blue', 'green', 'yellow', 'white', 'black', 'orange', 'purple', 'gray', 'pink', 'navy', 'teal'];
const phrases = [
  'Fresh bread daily',
  'Meeting at noon',
  'Closed on Sunday',
  'Invoice total due',
  'Garden party tonight',
  'Quiet please',
  'Welcome home',
  'Parking for guests',
];
const fonts = ['DejaVu-Sans', 'DejaVu-Serif', 'DejaVu-Sans-Mono', 'DejaVu-Sans-Bold'];

/**
 * The generated motif set: every class in several colour pairs and sizes, rendered by ImageMagick
 * (each image is rendered when `bytes()` is called).
 */
export function generatedMotifSet(): LabelledImage[] {
  const set: LabelledImage[] = [];
  for (const c of solids) set.push({ name: `solid ${c}`, expected: 'solid', bytes: () => motifRenderers.solid(c) });
  for (const [a, b] of pairs) set.push({ name: `gradient ${a}-${b}`, expected: 'gradient', bytes: () => motifRenderers.gradient(a, b) });
  for (const [i, [a, b]] of pairs.entries()) {
    const period = [12, 24, 40, 64][i % 4]!;
    for (const motif of ['horizontal_stripes', 'vertical_stripes', 'checks', 'dots'] as const) {
      set.push({
        name: `${motif} ${a}/${b} ${period}px`,
        expected: motif,
        bytes: () => motifRenderers[motif](a, b, motif === 'dots' ? Math.max(period, 20) : period),
      });
    }
  }
  for (const [i, text] of phrases.entries()) {
    const [fill, background] = pairs[i % pairs.length]!;
    const font = fonts[i % fonts.length]!;
    const size = [20, 28, 36, 48][i % 4]!;
    set.push({ name: `text "${text}" ${font} ${size}px`, expected: 'text', bytes: () => renderText(text, { font, size, fill, background }) });
  }
  return set;
}

/** Photographs from Debian's mate-backgrounds package (nature/), or none when it is not installed. */
export const photoDir = '/usr/share/backgrounds/mate/nature';

export function photographSet(): LabelledImage[] {
  let files: string[];
  try {
    files = readdirSync(photoDir).filter((f) => /\.jpe?g$/i.test(f));
  } catch {
    return [];
  }
  return files.sort().map((f) => ({
    name: f,
    expected: 'photo' as const,
    bytes: () => readFileSync(path.join(photoDir, f)),
  }));
}
