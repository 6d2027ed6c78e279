import { Cron } from 'croner';
import { InputError } from '../errors.js';
import type { ScheduleSpec } from './job-types.js';

const units: Record<string, number> = { ms: 1, s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 };
const intervalPattern = /^(\d+)(ms|s|m|h|d)$/;

/** The shortest interval a schedule may have: shorter would be a busy loop, not a schedule. */
export const MIN_INTERVAL_MS = 1000;
const MAX_INTERVAL_MS = 366 * units.d!;

export class InvalidScheduleError extends InputError {
  constructor(message: string, path: string) {
    super('invalid_schedule', message, { details: { issues: [{ path, message }] } });
    this.name = 'InvalidScheduleError';
  }
}

/** A schedule's cadence, parsed once: it computes the next tick after any instant. */
export interface Cadence {
  cron?: string;
  timezone?: string;
  interval?: string;
  intervalMs?: number;
  /** The first tick strictly after `after`; for intervals, counted from `anchor`. */
  next(after: Date, anchor: Date): Date;
}

/** `"15m"` -> 900000. Throws `invalid_schedule` with what was wrong. */
export function parseInterval(value: string | number, path = 'interval'): { text: string; ms: number } {
  let ms: number;
  let text: string;
  if (typeof value === 'number') {
    if (!Number.isInteger(value)) throw new InvalidScheduleError(`An interval in milliseconds must be a whole number, got ${value}.`, path);
    ms = value;
    text = `${value}ms`;
  } else {
    const match = intervalPattern.exec(value.trim());
    if (!match)
      throw new InvalidScheduleError(
        `"${value}" is not an interval: write a whole number and a unit, such as "30s", "15m", "6h" or "1d" (units ms, s, m, h, d).`,
        path,
      );
    ms = Number(match[1]) * units[match[2]!]!;
    text = `${Number(match[1])}${match[2]}`;
  }
  if (ms < MIN_INTERVAL_MS) throw new InvalidScheduleError(`An interval must be at least ${MIN_INTERVAL_MS / 1000}s, got ${text}.`, path);
  if (ms > MAX_INTERVAL_MS) throw new InvalidScheduleError(`An interval must be at most 366d, got ${text}.`, path);
  return { text, ms };
}

/** Validates a spec: exactly one of `cron` and `interval`, a valid expression, a known time zone. */
export function parseCadence(spec: ScheduleSpec): Cadence {
  const hasCron = spec.cron !== undefined && spec.cron !== '';
  const hasInterval = spec.interval !== undefined && spec.interval !== '';
  if (hasCron && hasInterval) throw new InvalidScheduleError('Give either "cron" or "interval", not both.', 'cron');
  if (!hasCron && !hasInterval) throw new InvalidScheduleError('A schedule needs "cron" (such as "0 3 * * *") or "interval" (such as "6h").', 'cron');
  if (hasInterval) {
    if (spec.timezone !== undefined) throw new InvalidScheduleError('"timezone" applies to "cron" schedules only.', 'timezone');
    const { text, ms } = parseInterval(spec.interval!);
    return {
      interval: text,
      intervalMs: ms,
      next(after, anchor) {
        // Ticks stay on the grid anchor + k*interval, so a late tick does not shift the ones after it.
        const elapsed = after.getTime() - anchor.getTime();
        const k = elapsed < 0 ? 0 : Math.floor(elapsed / ms) + 1;
        return new Date(anchor.getTime() + k * ms);
      },
    };
  }
  if (spec.timezone !== undefined && !isTimeZone(spec.timezone)) {
    throw new InvalidScheduleError(`"${spec.timezone}" is not a time zone this runtime knows (use an IANA name such as "Europe/Paris").`, 'timezone');
  }
  let cron: Cron;
  try {
    cron = new Cron(spec.cron!, { paused: true, ...(spec.timezone ? { timezone: spec.timezone } : { utcOffset: 0 }) });
  } catch (err) {
    throw new InvalidScheduleError(`"${spec.cron}" is not a valid cron expression: ${(err as Error).message}`, 'cron');
  }
  if (cron.nextRun(new Date()) === null) throw new InvalidScheduleError(`"${spec.cron}" never fires.`, 'cron');
  return {
    cron: spec.cron!,
    ...(spec.timezone ? { timezone: spec.timezone } : {}),
    next(after) {
      return cron.nextRun(after) ?? new Date(8.64e15);
    },
  };
}

function isTimeZone(zone: string): boolean {
  try {
    new Intl.DateTimeFormat('en', { timeZone: zone });
    return true;
  } catch {
    return false;
  }
}
