/** The words grounding searches the code index with. */
const stop = new Set(
  'the and for with that this from when what which should would could into have has not are was were will can its our your their about after before does doesn test tests fix bug issue error wrong returns return value values function method class file code use used using make makes'.split(
    ' ',
  ),
);

/** Lower-case words of a text, identifiers split at camelCase, snake_case, dots and slashes. */
export function keywordsOf(text: string): Set<string> {
  const words = new Set<string>();
  for (const token of text.match(/[A-Za-z_][A-Za-z0-9_]*/g) ?? []) {
    const parts = [token, ...token.split('_'), ...token.replace(/([a-z0-9])([A-Z])/g, '$1 $2').split(' ')];
    for (const p of parts) {
      const w = p.toLowerCase();
      if (w.length >= 3 && !stop.has(w)) words.add(w);
    }
  }
  return words;
}
