/**
 * The fluent DSL: builds the same JSON spec as hand-written files. Users import it as
 * `tessera-runtime/workflow` (package.json `exports`).
 *
 *   workflow('orders').route('POST', '/orders').searchFields(['customer']).tags(['demo'])
 *     .map({ customer: '{{input.customer}}' })
 *     .when('{{input.amount}} > 100', (w) => w.map({ review: true }))
 *     .fanOut([(b) => b.mock({ price: 10 }, 20), (b) => b.mock({ price: 12 }, 30)])
 *     .join('merge')
 *     .toJSON();
 */
import type { JoinKind, StepSpec, WorkflowSpec } from './spec.js';

export type { JoinKind, StepSpec, WorkflowSpec } from './spec.js';

type Method = WorkflowSpec['route']['method'];

export interface AppOptions {
  searchFields?: string[];
  /** From the request to the attributes (`{{attrs.*}}`); default: `x-tenant-id` into `tenant`. */
  inject?: (request: { headers: Headers; method: string; path: string; query: Record<string, string> }) => Record<string, unknown>;
}

export class StepsBuilder {
  protected readonly steps: StepSpec[] = [];
  private counter = 0;
  constructor(protected readonly prefix: string) {}

  protected nextId(kind: string, id?: string): string {
    return id ?? `${this.prefix}${kind}${++this.counter}`;
  }

  step(step: StepSpec): this {
    this.steps.push(step);
    return this;
  }

  map(set: Record<string, unknown>, options: { mergeInput?: boolean; id?: string } = {}): this {
    return this.step({ id: this.nextId('map', options.id), kind: 'map', config: { set, mergeInput: options.mergeInput ?? true } });
  }

  mock(response: unknown, delayMs = 0, options: { id?: string; mergeInput?: boolean } = {}): this {
    return this.step({ id: this.nextId('mock', options.id), kind: 'mock', config: { response, delayMs, ...(options.mergeInput ? { mergeInput: true } : {}) } });
  }

  when(condition: string, body: (w: StepsBuilder) => StepsBuilder, options: { id?: string } = {}): this {
    const id = this.nextId('when', options.id);
    const inner = body(new StepsBuilder(`${id}_`));
    return this.step({ id, kind: 'when', config: { condition }, steps: inner.build() });
  }

  branch(cases: Array<[string, (w: StepsBuilder) => StepsBuilder]>, otherwise?: (w: StepsBuilder) => StepsBuilder, options: { id?: string } = {}): this {
    const id = this.nextId('branch', options.id);
    return this.step({
      id,
      kind: 'branch',
      config: {
        cases: cases.map(([when, f], i) => ({ when, steps: f(new StepsBuilder(`${id}_c${i}_`)).build() })),
        default: otherwise ? otherwise(new StepsBuilder(`${id}_d_`)).build() : [],
      },
    });
  }

  /** Parallel branches; follow with `.join(kind)`. */
  fanOut(branches: Array<(b: StepsBuilder) => StepsBuilder>, options: { id?: string } = {}): this {
    const id = this.nextId('fanOut', options.id);
    return this.step({
      id,
      kind: 'fanOut',
      branches: branches.map((f, i) => f(new StepsBuilder(`${id}_b${i}_`)).build()),
      join: { id: `${id}_join`, kind: 'merge', config: {} },
    });
  }

  /** Sets the join of the last fanOut. */
  join(kind: JoinKind, options: { id?: string } = {}): this {
    const last = this.steps[this.steps.length - 1];
    if (!last || last.kind !== 'fanOut') throw new Error('join() must follow fanOut()');
    last.join = { id: options.id ?? last.join!.id, kind, config: {} };
    return this;
  }

  build(): StepSpec[] {
    return this.steps.map((s) => structuredClone(s));
  }
}

export class WorkflowBuilder extends StepsBuilder {
  private spec: Omit<WorkflowSpec, 'steps'>;
  options: AppOptions = {};
  constructor(name: string) {
    super('');
    this.spec = { name, version: '1', route: { method: 'POST', path: `/${name}` }, searchFields: [], tags: [] };
  }
  version(v: string): this {
    this.spec.version = v;
    return this;
  }
  route(method: Method, path: string): this {
    this.spec.route = { method, path };
    return this;
  }
  searchFields(fields: string[]): this {
    this.spec.searchFields = [...fields];
    return this;
  }
  tags(tags: string[]): this {
    this.spec.tags = [...tags];
    return this;
  }
  attrs(names: string[]): this {
    this.spec.attrs = [...names];
    return this;
  }
  requires(fields: string[]): this {
    this.spec.input = { required: [...fields] };
    return this;
  }
  /** Application options (`searchFields`, `inject`), as the seed's example passes them. */
  app(options: AppOptions): this {
    this.options = { ...this.options, ...options };
    if (options.searchFields) this.spec.searchFields = [...options.searchFields];
    return this;
  }
  toJSON(): WorkflowSpec {
    return { ...structuredClone(this.spec), steps: this.build() };
  }
}

export function workflow(name: string): WorkflowBuilder {
  return new WorkflowBuilder(name);
}
