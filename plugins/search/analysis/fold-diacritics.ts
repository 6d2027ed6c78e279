/**
 * Diacritic folding for one lower-cased word: compatibility decomposition (NFKD: "ﬁ" -> "fi",
 * full-width "Ａ" -> "A", "²" -> "2"), then removal of the Latin/Greek/Cyrillic combining
 * diacritics, then recomposition (NFC, so Hangul syllables come back whole).
 *
 * Only the combining-diacritics blocks are stripped, not every mark (\p{M}): Indic vowel signs
 * and the Japanese voicing marks are marks too, and removing them would change the word.
 */
// oxlint-disable-next-line no-misleading-character-class -- the class lists the combining marks on purpose
const combiningDiacritics = /[\u0300-\u036f\u1ab0-\u1aff\u1dc0-\u1dff\u20d0-\u20ff\ufe20-\ufe2f]/g;

/** Letters that carry their "accent" in the letter itself, so decomposition leaves them alone. */
const letterFolds: Readonly<Record<string, string>> = {
  ß: 'ss',
  æ: 'ae',
  œ: 'oe',
  ø: 'o',
  đ: 'd',
  ð: 'd',
  ł: 'l',
  þ: 'th',
  ı: 'i',
  ħ: 'h',
  ŧ: 't',
  ŀ: 'l',
  '\u2018': "'",
  '\u2019': "'",
  '\u02bc': "'",
};
const letterFoldPattern = new RegExp(`[${Object.keys(letterFolds).join('')}]`, 'g');

/** Folds diacritics and lower-cases; `word` may be in any case. */
export function foldDiacritics(word: string): string {
  const stripped = word.normalize('NFKD').replace(combiningDiacritics, '').toLowerCase();
  return stripped.replace(letterFoldPattern, (ch) => letterFolds[ch]!).normalize('NFC');
}
