/**
 * Lucene's English stop words (EnglishAnalyzer.ENGLISH_STOP_WORDS_SET): short on purpose, so
 * that words which carry meaning in a query ("between", "after", "over") stay searchable.
 */
export const englishStopWords: ReadonlySet<string> = new Set([
  'a', 'an', 'and', 'are', 'as', 'at', 'be', 'but', 'by', 'for', 'if', 'in', 'into', 'is', 'it', 'no', 'not', 'of', 'on',
  'or', 'such', 'that', 'the', 'their', 'then', 'there', 'these', 'they', 'this', 'to', 'was', 'will', 'with',
]);
