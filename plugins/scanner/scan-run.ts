import type { EventLog } from 'tessera-runtime/plugin';
import { finalScanStates, publicScan, type ScanRecord, type ScanState } from './scan-record.js';
import type { ScanStore } from './scan-store.js';
import type { SinkResult } from './index-sink.js';

const PROGRESS_EVERY_MS = 250;

/**
 * One scan while it runs: counters kept in memory, written to the store with whatever belongs
 * with them (fingerprints, a watermark) in one transaction at each checkpoint, and told to the
 * event log (`scan.<state>` on each transition, `scan.progress` at most every 250 ms).
 */
export class ScanRun {
  record: ScanRecord;
  readonly tenant: string;
  private readonly store: ScanStore;
  private readonly events: EventLog;
  private readonly maxReportedErrors: number;
  private lastProgressAt = 0;
  private progressTimer: NodeJS.Timeout | undefined;

  constructor(store: ScanStore, events: EventLog, tenant: string, record: ScanRecord, maxReportedErrors: number) {
    this.store = store;
    this.events = events.forTenant(tenant);
    this.tenant = tenant;
    this.record = record;
    this.maxReportedErrors = maxReportedErrors;
  }

  get counts() {
    return this.record.counts;
  }

  async setState(state: ScanState, change: Partial<ScanRecord> = {}): Promise<void> {
    const now = new Date().toISOString();
    this.record = { ...this.record, ...change, state, updatedAt: now };
    if (state === 'running' && this.record.startedAt === null) this.record.startedAt = now;
    if (finalScanStates.has(state)) this.record.finishedAt = now;
    if (this.progressTimer) clearTimeout(this.progressTimer);
    this.progressTimer = undefined;
    await this.store.put(this.tenant, this.record);
    await this.events.append(`scan.${state}`, publicScan(this.record), { subject: this.record.id });
  }

  /** One change applied while watching: told to the event log at once. */
  async change(change: 'created' | 'modified' | 'deleted', path: string): Promise<void> {
    await this.events.append('scan.change', { id: this.record.id, change, path }, { subject: this.record.id });
  }

  /** Record a bad line (file scans): counted always, listed up to the configured number. */
  badLine(line: number, message: string): void {
    this.record.counts.errors++;
    const list = (this.record.badLines ??= []);
    if (list.length < this.maxReportedErrors) list.push({ line, message });
  }

  /** Adds what the index acknowledged; returns the ids it refused. */
  acknowledge(result: SinkResult): Set<string> {
    this.record.counts.indexed += result.indexed;
    this.record.counts.errors += result.errors.length;
    if (result.errors.length > 0) {
      const first = result.errors[0]!;
      this.record.error = {
        code: first.code,
        message: `${result.errors.length} document(s) refused by the index; first: ${first.id ?? '?'}: ${first.message}`,
      };
    }
    return new Set(result.errors.flatMap((e) => (e.id !== undefined ? [e.id] : [])));
  }

  /**
   * Stores the record, and whatever `alsoWrite` puts, in one transaction (a checkpoint the scan
   * resumes from), then tells the event log, at most every 250 ms.
   */
  async checkpoint(alsoWrite?: () => void): Promise<void> {
    this.record.updatedAt = new Date().toISOString();
    const record = this.record;
    await this.store.transaction(() => {
      alsoWrite?.();
      void this.store.put(this.tenant, record);
    });
    this.progressEvent();
  }

  private progressEvent(): void {
    const wait = this.lastProgressAt + PROGRESS_EVERY_MS - Date.now();
    if (wait <= 0) {
      this.lastProgressAt = Date.now();
      void this.events.append('scan.progress', publicScan(this.record), { subject: this.record.id }).catch(() => undefined);
    } else if (!this.progressTimer) {
      this.progressTimer = setTimeout(() => {
        this.progressTimer = undefined;
        this.progressEvent();
      }, wait);
      this.progressTimer.unref();
    }
  }
}
