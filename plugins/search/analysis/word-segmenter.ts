/**
 * Unicode word segmentation (UAX #29, as ICU implements it in `Intl.Segmenter`), keeping only
 * word-like segments. `Intl.Segmenter` costs about 2 µs a word, too slow for indexing 100k+
 * documents, so ASCII stretches take a hand-written path that applies the same rules to the eight
 * ASCII character classes that matter; test/plugins/search/word-segmenter.test.ts proves the two
 * agree, exhaustively on short strings and on random mixed-script text.
 */

/** Called once per word-like segment with its UTF-16 offsets `[start, end)` in the text. */
export type WordCallback = (start: number, end: number, ascii: boolean) => void;

const segmenter = new Intl.Segmenter('en', { granularity: 'word' });

// ASCII classes from the Word_Break property (0, the table's default, is Other).
const LETTER = 1; // ALetter
const DIGIT = 2; // Numeric
const UNDERSCORE = 3; // ExtendNumLet
const MID_LETTER = 4; // ':'
const MID_NUM_LET = 5; // '.' and "'" (MidNumLet, Single_Quote)
const MID_NUM = 6; // ',' and ';'

const asciiClass = new Uint8Array(128);
for (let c = 65; c <= 90; c++) asciiClass[c] = LETTER;
for (let c = 97; c <= 122; c++) asciiClass[c] = LETTER;
for (let c = 48; c <= 57; c++) asciiClass[c] = DIGIT;
asciiClass[95] = UNDERSCORE;
asciiClass[58] = MID_LETTER;
asciiClass[46] = MID_NUM_LET;
asciiClass[39] = MID_NUM_LET;
asciiClass[44] = MID_NUM;
asciiClass[59] = MID_NUM;

function isAsciiSpace(c: number): boolean {
  return c === 32 || (c >= 9 && c <= 13);
}

/** Word-like segments of `text`, in order. */
export function segmentWords(text: string, onWord: WordCallback): void {
  const n = text.length;
  let pos = 0;
  while (pos < n) {
    let k = pos;
    while (k < n && text.charCodeAt(k) < 128) k++;
    if (k === n) {
      segmentAscii(text, pos, n, onWord);
      return;
    }
    // The non-ASCII stretch runs from the ASCII whitespace before it to an ASCII whitespace that is
    // followed by an ASCII character: UAX #29 always breaks on both sides of such a whitespace, so
    // each side can be segmented alone. The leading whitespace stays in the stretch because a
    // combining mark or format character right after it attaches to it.
    let start = k;
    while (start > pos && !isAsciiSpace(text.charCodeAt(start - 1))) start--;
    if (start > pos) start--;
    segmentAscii(text, pos, start, onWord);
    let end = k + 1;
    while (end < n && !(isAsciiSpace(text.charCodeAt(end)) && (end + 1 === n || text.charCodeAt(end + 1) < 128))) end++;
    segmentIntl(text, start, end, onWord);
    pos = end;
  }
}

function segmentIntl(text: string, from: number, to: number, onWord: WordCallback): void {
  for (const s of segmenter.segment(text.slice(from, to))) {
    if (!s.isWordLike) continue;
    const start = from + s.index;
    const end = start + s.segment.length;
    let ascii = true;
    for (let i = start; i < end; i++) {
      if (text.charCodeAt(i) >= 128) {
        ascii = false;
        break;
      }
    }
    onWord(start, end, ascii);
  }
}

/** UAX #29 rules WB5-WB13b restricted to ASCII; `to` must be the text's end or an ASCII whitespace. */
function segmentAscii(text: string, from: number, to: number, onWord: WordCallback): void {
  let i = from;
  while (i < to) {
    const c = asciiClass[text.charCodeAt(i)]!;
    if (c !== LETTER && c !== DIGIT && c !== UNDERSCORE) {
      i++;
      continue;
    }
    const start = i;
    let last = c;
    let underscores = c === UNDERSCORE ? 1 : 0;
    i++;
    while (i < to) {
      const d = asciiClass[text.charCodeAt(i)]!;
      if (d === LETTER || d === DIGIT || d === UNDERSCORE) {
        if (d === UNDERSCORE) underscores++;
        last = d;
        i++;
        continue;
      }
      if (i + 1 < to && d >= MID_LETTER) {
        const e = asciiClass[text.charCodeAt(i + 1)]!;
        // WB6/WB7: letter (MidLetter | MidNumLet) letter; WB11/WB12: digit (MidNum | MidNumLet) digit.
        if ((last === LETTER && e === LETTER && d !== MID_NUM) || (last === DIGIT && e === DIGIT && d !== MID_LETTER)) {
          i += 2;
          continue;
        }
      }
      break;
    }
    // ICU gives a lone '_' no word status, but a run of two or more does.
    if (!(underscores === 1 && i - start === 1)) onWord(start, i, true);
  }
}
