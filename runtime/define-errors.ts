import { TesseraError, type ErrorOptions } from './errors.js';
import type { ErrorCodeDoc } from './error-codes.js';

/** One error a plugin raises: its HTTP status, its message template and when it happens (for docs). */
export interface ErrorSpec {
  status: number;
  /** `{name}` placeholders are filled from the parameters: `'Index "{index}" does not exist.'` */
  message: string;
  /** One sentence for docs/errors.md: when a client sees this. */
  when: string;
}

/** The placeholder names of a message template, as a union of string literals. */
export type TemplateParams<S extends string> = S extends `${string}{${infer P}}${infer Rest}` ? P | TemplateParams<Rest> : never;

type ParamsArg<S extends string> = [TemplateParams<S>] extends [never]
  ? [params?: Record<string, unknown>, options?: ErrorOptions]
  : [params: { [K in TemplateParams<S>]: unknown } & Record<string, unknown>, options?: ErrorOptions];

/** Makes the error; also carries its code, status and doc line. */
export interface ErrorFactory<S extends string = string> {
  (...args: ParamsArg<S>): TesseraError;
  readonly code: string;
  readonly status: number;
  readonly when: string;
  readonly template: S;
  /** Whether `err` is an error of this code. */
  is(err: unknown): err is TesseraError;
}

const tableBrand = Symbol.for('tessera.errorTable');

export type ErrorTable<T extends Record<string, ErrorSpec>> = { readonly [K in keyof T & string]: ErrorFactory<T[K]['message']> } & {
  readonly [tableBrand]: true;
};

const codePattern = /^[a-z][a-z0-9]*(_[a-z0-9]+)*$/;

/** Fill `{name}` from params; a missing parameter stays visible as `{name}` rather than `undefined`. */
export function formatTemplate(template: string, params: Record<string, unknown> = {}): string {
  return template.replace(/\{([A-Za-z0-9_]+)\}/g, (whole, name: string) => {
    if (!Object.hasOwn(params, name)) return whole;
    const value = params[name];
    return typeof value === 'string' ? value : typeof value === 'number' || typeof value === 'boolean' ? String(value) : JSON.stringify(value);
  });
}

/**
 * A plugin's errors, declared once (Fastify's `createError` habit): each entry becomes a typed
 * factory, `throw errors.index_not_found({ index })`, and the same table feeds docs/errors.md. The
 * parameters become the error's `details` unless `options.details` says otherwise.
 *
 *   export const errors = defineErrors({
 *     index_not_found: { status: 404, message: 'Index "{index}" does not exist.', when: 'No index has that name.' },
 *   });
 */
export function defineErrors<const T extends Record<string, ErrorSpec>>(table: T): ErrorTable<T> {
  const out: Record<string, unknown> = { [tableBrand]: true };
  for (const [code, spec] of Object.entries(table)) {
    if (!codePattern.test(code)) throw new Error(`Error code "${code}" must be snake_case (lowercase letters, digits and single underscores)`);
    if (!Number.isInteger(spec.status) || spec.status < 400 || spec.status > 599)
      throw new Error(`Error "${code}" has status ${spec.status}; use a 4xx or 5xx status`);
    const factory = ((params: Record<string, unknown> = {}, options: ErrorOptions = {}) =>
      new TesseraError(code, spec.status, formatTemplate(spec.message, params), {
        ...options,
        details: options.details ?? (Object.keys(params).length > 0 ? params : undefined),
      })) as unknown as Record<string, unknown>;
    Object.defineProperties(factory, {
      code: { value: code, enumerable: true },
      status: { value: spec.status, enumerable: true },
      when: { value: spec.when, enumerable: true },
      template: { value: spec.message, enumerable: true },
      is: { value: (err: unknown) => typeof err === 'object' && err !== null && (err as { code?: unknown }).code === code },
      name: { value: code },
    });
    out[code] = factory;
  }
  return Object.freeze(out) as ErrorTable<T>;
}

export function isErrorTable(value: unknown): value is ErrorTable<Record<string, ErrorSpec>> {
  return typeof value === 'object' && value !== null && (value as Record<symbol, unknown>)[tableBrand] === true;
}

/** The doc lines of a table, in declaration order. */
export function errorTableDocs(table: ErrorTable<Record<string, ErrorSpec>>): ErrorCodeDoc[] {
  return Object.values(table).map((f) => ({ code: (f as ErrorFactory).code, status: (f as ErrorFactory).status, when: (f as ErrorFactory).when }));
}
