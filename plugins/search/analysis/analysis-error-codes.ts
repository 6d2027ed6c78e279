import type { ErrorCodeDoc } from 'tessera-runtime/plugin';

/** The errors of analysis and query parsing, for the search plugin's `errorCodes` (docs/errors.md). */
export const analysisErrorCodes: ErrorCodeDoc[] = [
  {
    code: 'unknown_analyzer',
    status: 400,
    when: 'A field mapping names an analyzer that does not exist; `details.expected` lists the analyzers (`standard`, `english`, `keyword`).',
  },
  {
    code: 'invalid_minimum_should_match',
    status: 400,
    when: '`minimumShouldMatch` is not `<n>%`, `-<n>%`, `<n>` or `-<n>` (an integer, a percentage between -100 and 100); `details.value` repeats it.',
  },
];
