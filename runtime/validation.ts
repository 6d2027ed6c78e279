import type { z } from 'zod';
import { ValidationError, type FieldIssue } from './errors.js';

/** `['listeners', 0, 'port']` -> `listeners[0].port`, the form every error message uses. */
export function formatPath(path: ReadonlyArray<PropertyKey>, prefix = ''): string {
  let out = prefix;
  for (const part of path) {
    if (typeof part === 'number') out += `[${part}]`;
    else out += out === '' ? String(part) : `.${String(part)}`;
  }
  return out === '' ? '(root)' : out;
}

export function issuesOf(error: z.ZodError, prefix = ''): FieldIssue[] {
  return locatedIssuesOf(error, prefix).map((l) => l.issue);
}

/** Each issue with the raw path it sits at, for callers that map paths back to source positions. */
export function locatedIssuesOf(error: z.ZodError, prefix = ''): Array<{ issue: FieldIssue; at: PropertyKey[] }> {
  const out: Array<{ issue: FieldIssue; at: PropertyKey[] }> = [];
  for (const issue of error.issues) {
    if (issue.code === 'unrecognized_keys') {
      // One line per unknown key, so each carries its own full path.
      for (const key of issue.keys) {
        const at = [...issue.path, key];
        out.push({ at, issue: { path: formatPath(at, prefix), message: 'unknown key', code: issue.code } });
      }
      continue;
    }
    out.push({ at: [...issue.path], issue: { path: formatPath(issue.path, prefix), message: issue.message, code: issue.code } });
  }
  return out;
}

/** Parse `value` with `schema` or throw `validation_failed` naming each bad field path. */
export function validate<S extends z.ZodType>(schema: S, value: unknown, what: string, prefix = ''): z.output<S> {
  const result = schema.safeParse(value);
  if (result.success) return result.data;
  const issues = issuesOf(result.error, prefix);
  const summary = issues.map((i) => `${i.path}: ${i.message}`).join('; ');
  throw new ValidationError(`Invalid ${what}: ${summary}`, issues);
}
