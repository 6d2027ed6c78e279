/**
 * How much of one text value is analysed: the first 1,000,000 characters (UTF-16 code units, never
 * cutting a surrogate pair), for indexing and for highlighting alike. Beyond it a value is stored
 * and returned whole but not searchable or highlighted, as Meilisearch indexes only a value's first
 * 65,535 positions and Elasticsearch highlights only up to `index.highlight.max_analyzed_offset`
 * (1,000,000 by default). Without a bound a 50 MB field costs gigabytes of tokens at ingestion and
 * tens of seconds per highlighted hit.
 */
export const maxAnalyzedChars = 1_000_000;

export function analyzedPart(text: string): string {
  if (text.length <= maxAnalyzedChars) return text;
  const cut = text.charCodeAt(maxAnalyzedChars - 1);
  return text.slice(0, cut >= 0xd800 && cut <= 0xdbff ? maxAnalyzedChars - 1 : maxAnalyzedChars);
}
