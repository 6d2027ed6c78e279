/**
 * `POST /v1/config/apply {plan, hash, allowDestructive?}`: carries out a plan that
 * `/v1/config/plan` answered, as Terraform applies a saved plan. Nothing is kept between the two
 * calls: the plan travels with its hash, and the apply goes ahead only if hashing that plan with
 * the tenant's indexes as they are now gives the same hash (otherwise 409 `plan_stale`: the
 * indexes, or the plan, changed; plan again). Destructive steps (judged from the indexes as they
 * are, not from the plan's own flags) need `allowDestructive: true` (otherwise 409
 * `destructive_change`). Nothing is done in either case.
 *
 * Per index, in plan order: create_index creates; delete_index drops; settings, new fields and
 * analyzer changes are one PATCH (re-indexing when needed); a type change or a removed field
 * rebuilds the index from its documents' sources (those that no longer fit are lost, and counted).
 */
import { ConflictError, InputError } from 'tessera-runtime/plugin';
import { has } from '../index/bitset.js';
import { parseCreateIndex, parsePatchIndex, type FieldMapping, type FieldMappingInput } from '../index/mappings.js';
import type { SearchEngine } from '../index/search-engine.js';
import { planHash, stateOf, type PlanStep, type PlannedState } from './config-plan.js';

export interface ApplyResult {
  applied: PlanStep[];
  /** Documents that did not fit a rebuilt index's new mappings. */
  documentsLost: number;
}

/** `index.mappings.field` or `index.settings.key`, or the index alone. */
function parseTarget(target: string): { index: string; kind?: 'mappings' | 'settings'; key?: string } {
  const match = /^([^.]+)\.(mappings|settings)\.(.+)$/.exec(target);
  return match ? { index: match[1]!, kind: match[2] as 'mappings' | 'settings', key: match[3]! } : { index: target };
}

/** Whether a step loses data, judged from the index as it is now. */
function destructive(step: PlanStep, state: PlannedState | undefined): boolean {
  if (step.action === 'delete_index') return true;
  if (!state || state.docCount === 0) return false;
  const { key } = parseTarget(step.target);
  if (step.action === 'remove_field') return true;
  if (step.action === 'change_field') return state.mappings[key!]?.type !== (step.details['to'] as { type?: string } | undefined)?.type;
  return false;
}

export class ConfigPlans {
  private readonly engine: () => SearchEngine;
  private tail: Promise<unknown> = Promise.resolve();

  constructor(engine: () => SearchEngine) {
    this.engine = engine;
  }

  apply(tenant: string, plan: PlanStep[], hash: string, allowDestructive: boolean): Promise<ApplyResult> {
    const run = this.tail.then(() => this.applyNow(tenant, plan, hash, allowDestructive));
    this.tail = run.catch(() => undefined);
    return run;
  }

  private async applyNow(tenant: string, plan: PlanStep[], hash: string, allowDestructive: boolean): Promise<ApplyResult> {
    const engine = this.engine();
    const state = stateOf(engine.list(tenant));
    const now = planHash(state, plan);
    if (now !== hash)
      throw new ConflictError('plan_stale', 'The indexes (or the plan) changed since this plan was made; plan again.', { details: { hash, current: now } });
    const current = new Map(state.map((s) => [s.name, s]));
    const losing = plan.filter((s) => destructive(s, current.get(parseTarget(s.target).index))).map((s) => s.target);
    if (losing.length > 0 && !allowDestructive) {
      throw new ConflictError('destructive_change', `The plan loses data (${losing.join(', ')}); apply with allowDestructive: true to carry it out.`, {
        details: { targets: losing },
      });
    }
    const byIndex = new Map<string, PlanStep[]>();
    for (const step of plan) {
      const { index } = parseTarget(step.target);
      byIndex.set(index, [...(byIndex.get(index) ?? []), step]);
    }
    let documentsLost = 0;
    for (const [name, steps] of byIndex) {
      const have = current.get(name);
      const create = steps.find((s) => s.action === 'create_index');
      if (steps.some((s) => s.action === 'delete_index')) {
        if (have) await engine.delete(tenant, name);
        continue;
      }
      if (create) {
        if (have) throw new ConflictError('index_exists', `Index "${name}" already exists.`, { details: { index: name } });
        await engine.create(tenant, parseCreateIndex({ name, mappings: create.details['mappings'] ?? {}, settings: create.details['settings'] ?? {} }));
        continue;
      }
      if (!have)
        throw new InputError('validation_failed', `The plan changes index "${name}", which does not exist.`, {
          details: { issues: [{ path: 'body.plan', message: `no index "${name}"` }] },
        });
      const settings: Record<string, unknown> = {};
      const mappings: Record<string, FieldMappingInput> = {};
      const removed = new Set<string>();
      let rebuild = false;
      for (const step of steps) {
        const { key } = parseTarget(step.target);
        if (step.action === 'update_setting') settings[key!] = step.details['to'];
        else if (step.action === 'add_field') mappings[key!] = step.details['mapping'] as FieldMappingInput;
        else if (step.action === 'change_field') {
          mappings[key!] = step.details['to'] as FieldMappingInput;
          if (have.mappings[key!]?.type !== mappings[key!]!.type) rebuild = true;
        } else if (step.action === 'remove_field') {
          removed.add(key!);
          rebuild = true;
        }
      }
      if (rebuild) documentsLost += await this.rebuild(tenant, name, have, mappings, removed, settings);
      else await engine.patch(tenant, name, parsePatchIndex({ mappings, settings }));
    }
    return { applied: plan, documentsLost };
  }

  /** Drops and re-creates the index with the new definition, writing its documents back; answers how many did not fit. */
  private async rebuild(
    tenant: string,
    name: string,
    have: PlannedState,
    changed: Record<string, FieldMappingInput>,
    removed: ReadonlySet<string>,
    settings: Record<string, unknown>,
  ): Promise<number> {
    const engine = this.engine();
    const mappings: Record<string, FieldMapping | FieldMappingInput> = { ...have.mappings, ...changed };
    for (const field of removed) delete mappings[field];
    // Checked before anything is dropped: a bad definition leaves the index as it is.
    const input = parseCreateIndex({ name, mappings, settings: { ...have.settings, ...settings } });
    const index = engine.get(tenant, name);
    const documents: Record<string, unknown>[] = [];
    for (const segment of index.segments) {
      segment.data.ids.forEach((id, ord) => {
        if (has(segment.deleted, ord)) return;
        const source = index.getDocument(id);
        if (source) documents.push({ ...source, id });
      });
    }
    await engine.delete(tenant, name);
    await engine.create(tenant, input);
    let lost = 0;
    for (let i = 0; i < documents.length; i += 1000) lost += (await engine.get(tenant, name).upsert(documents.slice(i, i + 1000))).errors.length;
    return lost;
  }
}
