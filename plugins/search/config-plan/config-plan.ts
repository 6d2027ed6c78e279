/**
 * The plan between the indexes a tenant has and a configuration spec, in the manner of
 * Terraform's plan: it reads, never writes (not even the plan: it travels back with its hash). Actions per index, indexes by name, and within an
 * index: create_index, update_setting (by key), add_field, change_field, remove_field (by path),
 * delete_index. The hash covers the plan and the state it was made from, so an apply can tell
 * whether either has moved since.
 *
 * - Settings the spec leaves out keep their current value (a spec lists what it manages).
 * - A changed analyzer or `index` flag re-analyses the documents (requiresReindex); a changed type
 *   cannot be done in place (values of the old type may not fit): the index is rebuilt from its
 *   documents and those that do not fit are lost (destructive). A removed mapping rebuilds the
 *   index too; the field stays in the documents' sources, unsearchable (destructive: its index is lost).
 */
import { createHash } from 'node:crypto';
import { normaliseFieldMapping, type FieldMapping } from '../index/mappings.js';
import type { IndexDefinition } from '../index/search-engine.js';
import type { ConfigSpec } from './config-spec.js';

export type PlanAction = 'create_index' | 'delete_index' | 'add_field' | 'change_field' | 'remove_field' | 'update_setting';

export interface PlanStep {
  action: PlanAction;
  target: string;
  details: Record<string, unknown>;
}

/** The part of an index a plan reads: its definition, and when it was created (a re-created index is another state). */
export interface PlannedState {
  name: string;
  mappings: Record<string, FieldMapping>;
  settings: Record<string, unknown>;
  createdAt: string;
  docCount: number;
}

export function stateOf(indexes: readonly IndexDefinition[]): PlannedState[] {
  return indexes
    .map((i) => ({ name: i.name, mappings: i.mappings, settings: i.settings as Record<string, unknown>, createdAt: i.createdAt, docCount: i.docCount }))
    .sort((a, b) => (a.name < b.name ? -1 : 1));
}

const same = (a: unknown, b: unknown): boolean => canonical(a) === canonical(b);

export function computePlan(state: readonly PlannedState[], spec: ConfigSpec): PlanStep[] {
  const current = new Map(state.map((s) => [s.name, s]));
  const wanted = new Map(spec.indexes.map((i) => [i.name, i]));
  const names = [...new Set([...current.keys(), ...wanted.keys()])].sort();
  const plan: PlanStep[] = [];
  for (const name of names) {
    const have = current.get(name);
    const want = wanted.get(name);
    if (!have) {
      const mappings = Object.fromEntries(Object.entries(want!.mappings).map(([f, m]) => [f, normaliseFieldMapping(m)]));
      plan.push({ action: 'create_index', target: name, details: { mappings, settings: want!.settings } });
      continue;
    }
    if (!want) {
      plan.push({ action: 'delete_index', target: name, details: { docCount: have.docCount, destructive: true } });
      continue;
    }
    const reindex = have.docCount > 0;
    for (const key of Object.keys(want.settings).sort()) {
      const to = (want.settings as Record<string, unknown>)[key];
      const from = have.settings[key];
      if (!same(from, to)) plan.push({ action: 'update_setting', target: `${name}.settings.${key}`, details: { from: from ?? null, to } });
    }
    const fields = [...new Set([...Object.keys(have.mappings), ...Object.keys(want.mappings)])].sort();
    for (const field of fields) {
      const from = have.mappings[field];
      const input = want.mappings[field];
      const target = `${name}.mappings.${field}`;
      if (!from) {
        plan.push({ action: 'add_field', target, details: { mapping: normaliseFieldMapping(input!), requiresReindex: reindex, destructive: false } });
      } else if (!input) {
        plan.push({ action: 'remove_field', target, details: { mapping: from, requiresReindex: reindex, destructive: reindex } });
      } else {
        const to = normaliseFieldMapping(input);
        if (same(from, to)) continue;
        const typeChanged = from.type !== to.type;
        plan.push({ action: 'change_field', target, details: { from, to, requiresReindex: reindex, destructive: typeChanged && reindex } });
      }
    }
  }
  return plan.sort(
    (a, b) =>
      indexOf(a).localeCompare(indexOf(b)) ||
      actionOrder.indexOf(a.action) - actionOrder.indexOf(b.action) ||
      (a.target < b.target ? -1 : a.target > b.target ? 1 : 0),
  );
}

const actionOrder: readonly PlanAction[] = ['create_index', 'update_setting', 'add_field', 'change_field', 'remove_field', 'delete_index'];
const indexOf = (step: PlanStep): string => step.target.split('.')[0]!;

/** A deterministic hash of the plan and the state it was computed from. */
export function planHash(state: readonly PlannedState[], plan: readonly PlanStep[]): string {
  const schema = state.map(({ name, mappings, settings, createdAt }) => ({ name, mappings, settings, createdAt }));
  return createHash('sha256')
    .update(canonical({ plan, state: schema }))
    .digest('hex');
}

/** JSON with object keys sorted, so equal values always serialise alike. */
export function canonical(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonical).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    return `{${Object.keys(value)
      .filter((k) => (value as Record<string, unknown>)[k] !== undefined)
      .sort()
      .map((k) => `${JSON.stringify(k)}:${canonical((value as Record<string, unknown>)[k])}`)
      .join(',')}}`;
  }
  return JSON.stringify(value ?? null);
}
