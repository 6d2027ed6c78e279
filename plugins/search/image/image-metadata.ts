import { englishStopWords } from '../analysis/stop-words.js';
import type { ColorShare } from './dominant-colors.js';
import type { ImageFormat } from './image-header.js';
import type { Motif } from './motif-classifier.js';
import type { OcrResult, OcrWord } from './ocr-pool.js';

/** Seed 000's AutocompleteSuggestion, as image metadata fills it. */
export interface VisualSuggestion {
  text: string;
  type: 'visual_tag' | 'motif' | 'color';
  score: number;
  count: number;
  docId?: string;
  payload: Record<string, unknown>;
}

/** Seed 000's ImageMetadataResult, plus what the seed leaves open (`colorShares`, `image`, `ocr.wordDetails`). */
export interface ImageMetadata {
  ocr: { text: string; confidence: number; words: string[]; wordDetails: OcrWord[] } | null;
  colors: string[];
  motifs: Motif[];
  tags: string[];
  suggestedKeywords: string[];
  autocompleteSuggestions: VisualSuggestion[];
  colorShares: ColorShare[];
  image: { format: ImageFormat; width: number; height: number; bytes: number; sha256: string };
}

/** How a motif reads in a phrase with a colour: "red striped", "blue checked". */
export const motifAdjectives: Record<Motif, string> = {
  solid: 'solid',
  gradient: 'gradient',
  horizontal_stripes: 'striped',
  vertical_stripes: 'striped',
  checks: 'checked',
  dots: 'dotted',
  text: 'text',
  photo: 'photo',
};

/** At most this many OCR words become tags. */
export const MAX_OCR_TAGS = 10;

/** OCR words worth a tag: 3+ characters with a letter, not a stop word, lower-cased, first occurrence only. */
export function salientWords(words: readonly OcrWord[]): string[] {
  const out = new Set<string>();
  for (const w of words) {
    const word = w.text.toLowerCase();
    if (word.length < 3 || !/\p{L}/u.test(word) || englishStopWords.has(word)) continue;
    out.add(word);
  }
  return [...out];
}

export function buildMetadata(input: { image: ImageMetadata['image']; colors: ColorShare[]; motifs: Motif[]; ocr: OcrResult | null }): ImageMetadata {
  const { colors, motifs, ocr } = input;
  const keywords = ocr ? salientWords(ocr.words) : [];
  const phrases: string[] = [];
  if (motifs[0] !== undefined) for (const c of colors.slice(0, 2)) phrases.push(`${c.name} ${motifAdjectives[motifs[0]]}`);
  const tags = [...new Set([...colors.map((c) => c.name), ...motifs, ...keywords.slice(0, MAX_OCR_TAGS)])];
  const suggestions: VisualSuggestion[] = [
    ...colors.map((c) => ({ text: c.name, type: 'color' as const, score: c.share, count: 1, payload: { share: c.share, hex: c.hex } })),
    ...motifs.map((m, i) => ({ text: m, type: 'motif' as const, score: i === 0 ? 1 : 0.5, count: 1, payload: { motif: m, label: m.replace('_', ' ') } })),
    ...phrases.map((p, i) => ({ text: p, type: 'visual_tag' as const, score: colors[i]!.share, count: 1, payload: { source: 'colour_motif' } })),
    ...keywords.slice(0, MAX_OCR_TAGS).map((k) => {
      const best = Math.max(...ocr!.words.filter((w) => w.text.toLowerCase() === k).map((w) => w.confidence));
      return { text: k, type: 'visual_tag' as const, score: Math.round(best) / 100, count: 1, payload: { source: 'ocr', confidence: best } };
    }),
  ];
  return {
    ocr: ocr ? { text: ocr.text, confidence: ocr.confidence, words: ocr.words.map((w) => w.text), wordDetails: ocr.words } : null,
    colors: colors.map((c) => c.name),
    motifs,
    tags,
    suggestedKeywords: [...new Set([...keywords, ...phrases])],
    autocompleteSuggestions: suggestions,
    colorShares: colors,
    image: input.image,
  };
}
