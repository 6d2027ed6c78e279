import { InputError } from 'tessera-runtime/plugin';

/**
 * `minimumShouldMatch`: how many of a query's optional clauses a document must match.
 *
 * | form | meaning, for n optional clauses | "a b c d" (n = 4) |
 * |---|---|---|
 * | `75%` | floor(n * 75 / 100) | 3 |
 * | `-25%` | n - floor(n * 25 / 100): at most 25% may be missing | 3 |
 * | `3` (string or number) | 3 | 3 |
 * | `-1` | n - 1 | 3 |
 *
 * The result is clamped to [0, n], as Elasticsearch does.
 */
export interface MinimumShouldMatch {
  kind: 'count' | 'percent';
  /** Negative: how many (or what share) may be missing rather than must match. */
  value: number;
}

export class InvalidMinimumShouldMatchError extends InputError {
  constructor(value: unknown) {
    super(
      'invalid_minimum_should_match',
      `minimumShouldMatch must look like "75%", "-25%", "2" or "-1" (percent between -100 and 100), got ${JSON.stringify(value) ?? String(value)}`,
      { details: { value } },
    );
    this.name = 'InvalidMinimumShouldMatchError';
  }
}

const form = /^(-?)(\d{1,9})(%?)$/;

/** Validates a `minimumShouldMatch` value; throws `invalid_minimum_should_match` (400). */
export function parseMinimumShouldMatch(spec: string | number): MinimumShouldMatch {
  const match = form.exec(typeof spec === 'number' ? String(spec) : typeof spec === 'string' ? spec.trim() : '');
  if (!match) throw new InvalidMinimumShouldMatchError(spec);
  const value = Number(match[2]) * (match[1] ? -1 : 1);
  if (match[3]) {
    if (Math.abs(value) > 100) throw new InvalidMinimumShouldMatchError(spec);
    return { kind: 'percent', value };
  }
  return { kind: 'count', value };
}

/** How many of `optional` clauses must match under `spec`. */
export function resolveMinimumShouldMatch(spec: MinimumShouldMatch, optional: number): number {
  let required: number;
  if (spec.kind === 'percent') {
    const share = Math.floor((optional * Math.abs(spec.value)) / 100);
    required = spec.value >= 0 ? share : optional - share;
  } else {
    required = spec.value >= 0 ? spec.value : optional + spec.value;
  }
  return Math.min(optional, Math.max(0, required));
}
