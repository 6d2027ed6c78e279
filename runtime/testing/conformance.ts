import { afterAll, describe, it } from 'vitest';

/** One behaviour every implementation of an extension point must have. */
export type ConformanceCase<Subject> = (subject: Subject) => void | Promise<void>;

export interface ConformanceOptions<Subject> {
  /** Cases this implementation cannot support, with why: they show as skipped, never silently absent. */
  skip?: Record<string, string>;
  /** Called once after the cases, with every subject `make` produced. */
  teardown?: (subjects: Subject[]) => void | Promise<void>;
  /** Per-case timeout in ms. */
  timeoutMs?: number;
}

/** Runs the suite against one implementation: `suite('openai', () => openAiEmbedder({...}))`. */
export interface ConformanceSuite<Subject> {
  (label: string, make: () => Subject | Promise<Subject>, options?: ConformanceOptions<Subject>): void;
  readonly suiteName: string;
  readonly cases: readonly string[];
}

/**
 * A conformance suite for an extension point (unstorage's `testDriver()` habit): the behaviours are
 * written once, and every implementation's test file runs them against its own subject, so a new
 * embedder, LLM provider, forge client, storage driver or scan source is held to the same contract
 * as the built-in ones.
 *
 *   export const embedderConformance = defineConformance<Embedder>('embedder', {
 *     'returns one vector per text, in order': async (e) => { ... expect(...) ... },
 *   });
 *   // in each implementation's test file:
 *   embedderConformance('builtin hashed-ngrams-v2', () => builtinEmbedder(32, 'hashed-ngrams-v2'));
 *
 * Each case gets a fresh subject from `make`. A `skip` naming a case that does not exist throws, so a
 * renamed case cannot leave an implementation unchecked.
 */
export function defineConformance<Subject>(suiteName: string, cases: Record<string, ConformanceCase<Subject>>): ConformanceSuite<Subject> {
  const names = Object.keys(cases);
  const suite = (label: string, make: () => Subject | Promise<Subject>, options: ConformanceOptions<Subject> = {}): void => {
    const skip = options.skip ?? {};
    for (const name of Object.keys(skip)) {
      if (!names.includes(name)) throw new Error(`${suiteName} conformance has no case "${name}" to skip (cases: ${names.join('; ')})`);
    }
    describe(`${label} (${suiteName} conformance)`, () => {
      const made: Subject[] = [];
      afterAll(async () => {
        await options.teardown?.(made);
      });
      for (const [name, run] of Object.entries(cases)) {
        if (skip[name] !== undefined) {
          it.skip(`${name} (skipped: ${skip[name]})`, () => undefined);
          continue;
        }
        it(
          name,
          async () => {
            const subject = await make();
            made.push(subject);
            await run(subject);
          },
          options.timeoutMs,
        );
      }
    });
  };
  return Object.assign(suite, { suiteName, cases: names });
}
