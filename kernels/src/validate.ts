import { KernelInvalidInputError } from './errors.js';

// Checks shared by every typed wrapper. Each throws kernel_invalid_input naming the argument.

export function assertInteger(name: string, value: number, min: number, max = Number.MAX_SAFE_INTEGER): void {
  if (!Number.isInteger(value) || value < min || value > max) {
    throw new KernelInvalidInputError(`${name} must be an integer in [${min}, ${max}], got ${value}`);
  }
}

export function assertK(k: number): void {
  if (!Number.isInteger(k) || k < 1) throw new KernelInvalidInputError(`k must be an integer >= 1, got ${k}`);
}

export function assertFinite(name: string, value: number): void {
  if (typeof value !== 'number' || !Number.isFinite(value)) {
    throw new KernelInvalidInputError(`${name} must be a finite number, got ${value}`);
  }
}

export function assertRange(name: string, value: number, min: number, max: number): void {
  assertFinite(name, value);
  if (value < min || value > max) throw new KernelInvalidInputError(`${name} must be in [${min}, ${max}], got ${value}`);
}

/** Finite check over a whole array; reports the first bad index. */
export function assertFiniteArray(name: string, values: ArrayLike<number>): void {
  for (let i = 0; i < values.length; i++) {
    if (!Number.isFinite(values[i])) {
      throw new KernelInvalidInputError(`${name}[${i}] must be finite, got ${values[i]}`);
    }
  }
}

export function assertLength(name: string, values: ArrayLike<number>, length: number): void {
  if (values.length !== length) {
    throw new KernelInvalidInputError(`${name} must have length ${length}, got ${values.length}`);
  }
}

/** Rejects option keys the wrapper does not know, so a typo is an error rather than a default. */
export function assertKnownKeys(name: string, value: object, known: readonly string[]): void {
  for (const key of Object.keys(value)) {
    if (!known.includes(key)) throw new KernelInvalidInputError(`${name} has unknown option ${JSON.stringify(key)}`);
  }
}
