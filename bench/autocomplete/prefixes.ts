/**
 * The fixed quality list: 100 prefixes of WordNet titles (seeded, so every run judges the same
 * ones), and the same 100 with one typo each. A prefix is the start of a title's first lemma, 3 to
 * 8 characters, cut at a letter; its typo'd form (prefixes of 5+ characters) swaps two adjacent
 * letters or substitutes one, inside the prefix, never the first letter.
 */
import { prng } from '../support/prng.js';

export interface QualityPrefix {
  prefix: string;
  typo: string;
  /** The title the prefix was cut from. */
  title: string;
}

export function qualityPrefixes(titles: readonly string[], seed = 13, count = 100): QualityPrefix[] {
  const rand = prng(seed);
  const out: QualityPrefix[] = [];
  const seen = new Set<string>();
  while (out.length < count) {
    const title = titles[Math.floor(rand() * titles.length)]!;
    const lemma = title.split(',')[0]!.trim().toLowerCase();
    if (!/^[a-z]{5,}/.test(lemma)) continue;
    const length = Math.min(lemma.length, 5 + Math.floor(rand() * 4));
    const prefix = lemma.slice(0, length);
    if (!/^[a-z]+$/.test(prefix) || seen.has(prefix)) continue;
    seen.add(prefix);
    const at = 1 + Math.floor(rand() * (prefix.length - 2));
    const chars = [...prefix];
    if (rand() < 0.5) [chars[at], chars[at + 1]] = [chars[at + 1]!, chars[at]!];
    else chars[at] = chars[at] === 'e' ? 'a' : 'e';
    const typo = chars.join('');
    if (typo === prefix) continue;
    out.push({ prefix, typo, title });
  }
  return out;
}

/** Lower-cased, diacritics removed, words joined by one space: how titles are compared. */
export function fold(text: string): string {
  return (
    text
      .normalize('NFKD')
      .replace(/[\u0300-\u036f]/g, '')
      .toLowerCase()
      .match(/[\p{L}\p{N}]+/gu)
      ?.join(' ') ?? ''
  );
}
