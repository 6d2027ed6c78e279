/**
 * Every error Tessera raises carries a stable snake_case `code`, an HTTP status and a message.
 * Plugins throw `TesseraError` or one of its families below, so the HTTP layer can answer any of them
 * with the same body: `{ ok: false, error: { code, message, details? } }`.
 */
export interface ErrorOptions {
  /** Sent to the client as `error.details` (field issues, the missing permission, an id). */
  details?: unknown;
  /** The underlying error: logged with the stack, never sent to the client. */
  cause?: unknown;
  /** Extra response headers, e.g. `Retry-After` for 429 or `Allow` for 405. */
  headers?: Record<string, string>;
  /** The plugin the error was raised in; set by the runtime when it wraps plugin failures. */
  plugin?: string;
}

const brand = Symbol.for('tessera.error');

export class TesseraError extends Error {
  /** Lets `isTesseraError` recognise errors from another copy of this module (a plugin's bundle). */
  readonly [brand] = true;
  readonly code: string;
  readonly status: number;
  readonly details?: unknown;
  readonly headers?: Record<string, string>;
  plugin?: string;

  constructor(code: string, status: number, message: string, options: ErrorOptions = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = 'TesseraError';
    this.code = code;
    this.status = status;
    this.details = options.details;
    this.headers = options.headers;
    this.plugin = options.plugin;
  }

  toJSON(): { code: string; message: string; details?: unknown } {
    return this.details === undefined ? { code: this.code, message: this.message } : { code: this.code, message: this.message, details: this.details };
  }
}

export function isTesseraError(value: unknown): value is TesseraError {
  return value instanceof TesseraError || (typeof value === 'object' && value !== null && (value as Record<symbol, unknown>)[brand] === true);
}

/** Semantic error families, mapped to statuses the way Backstage's InputError/NotFoundError are. */
export class InputError extends TesseraError {
  constructor(code: string, message: string, options?: ErrorOptions) {
    super(code, 400, message, options);
    this.name = 'InputError';
  }
}

export class NotFoundError extends TesseraError {
  constructor(code: string, message: string, options?: ErrorOptions) {
    super(code, 404, message, options);
    this.name = 'NotFoundError';
  }
}

export class ConflictError extends TesseraError {
  constructor(code: string, message: string, options?: ErrorOptions) {
    super(code, 409, message, options);
    this.name = 'ConflictError';
  }
}

export class UnprocessableError extends TesseraError {
  constructor(code: string, message: string, options?: ErrorOptions) {
    super(code, 422, message, options);
    this.name = 'UnprocessableError';
  }
}

export class AuthenticationError extends TesseraError {
  constructor(code: string, message: string, options?: ErrorOptions) {
    super(code, 401, message, options);
    this.name = 'AuthenticationError';
  }
}

export class PermissionError extends TesseraError {
  constructor(code: string, message: string, options?: ErrorOptions) {
    super(code, 403, message, options);
    this.name = 'PermissionError';
  }
}

/** A field problem reported by schema validation: where, and what was expected. */
export interface FieldIssue {
  path: string;
  message: string;
  code?: string;
}

export class ValidationError extends InputError {
  constructor(message: string, issues: FieldIssue[]) {
    super('validation_failed', message, { details: { issues } });
    this.name = 'ValidationError';
  }

  get issues(): FieldIssue[] {
    return (this.details as { issues: FieldIssue[] }).issues;
  }
}
