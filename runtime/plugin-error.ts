import { TesseraError } from './errors.js';

/** A failure that belongs to one plugin: the code says what, `plugin` says whose. */
export class PluginError extends TesseraError {
  constructor(code: string, plugin: string, message: string, options: { cause?: unknown; details?: unknown; status?: number } = {}) {
    // 500 for start-up failures; a conflict found while serving (a route added at run time) is 409.
    super(code, options.status ?? 500, `[plugin ${plugin}] ${message}`, { cause: options.cause, details: options.details, plugin });
    this.name = 'PluginError';
  }
}
