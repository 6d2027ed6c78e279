/**
 * The workflow specification: what hand-written JSON, the DSL and other tools all produce.
 * docs/workflow.schema.json is generated from `workflowSpecSchema` (see scripts in docs/workflow.md).
 */
import { z } from 'tessera-runtime/plugin';

export const stepKinds = ['map', 'when', 'fanOut', 'branch', 'mock'] as const;
export const joinKinds = ['merge', 'array', 'first'] as const;
export const routeMethods = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'] as const;

export type StepKind = (typeof stepKinds)[number];
export type JoinKind = (typeof joinKinds)[number];

export const stepIdSchema = z.string().regex(/^[A-Za-z_][A-Za-z0-9_-]{0,63}$/, 'a step id is a letter or _ then up to 63 letters, digits, _ or -');

export const retrySchema = z
  .object({
    attempts: z.number().int().min(1).max(10).describe('Attempts in all, the first included.'),
    backoffMs: z.number().int().min(0).max(60_000).default(100),
    factor: z.number().min(1).max(10).default(2),
  })
  .strict();

export interface StepSpec {
  id: string;
  kind: StepKind;
  config?: Record<string, unknown>;
  steps?: StepSpec[];
  branches?: StepSpec[][];
  join?: JoinSpec;
  timeoutMs?: number;
  retry?: { attempts: number; backoffMs?: number; factor?: number };
  description?: string;
}

export interface JoinSpec {
  id: string;
  kind: JoinKind;
  config?: Record<string, unknown>;
}

export const joinSchema = z
  .object({
    id: stepIdSchema,
    kind: z.enum(joinKinds),
    config: z.record(z.string(), z.unknown()).optional(),
  })
  .strict();

export const stepSchema: z.ZodType<StepSpec> = z.lazy(() =>
  z
    .object({
      id: stepIdSchema,
      kind: z.enum(stepKinds),
      description: z.string().max(1000).optional(),
      config: z.record(z.string(), z.unknown()).optional(),
      steps: z.array(stepSchema).optional().describe('`when`: the steps run when the condition holds.'),
      branches: z.array(z.array(stepSchema)).optional().describe('`fanOut`: branches run concurrently.'),
      join: joinSchema.optional().describe('`fanOut`: how the branch outputs are combined.'),
      timeoutMs: z.number().int().min(1).max(600_000).optional(),
      retry: retrySchema.optional(),
    })
    .strict(),
);

export const routePathPattern = /^\/(?:(?::[A-Za-z_][A-Za-z0-9_]*|[A-Za-z0-9._~-]+)(?:\/(?::[A-Za-z_][A-Za-z0-9_]*|[A-Za-z0-9._~-]+))*)?$/;

export const workflowSpecSchema = z
  .object({
    $schema: z.string().optional(),
    name: z.string().regex(/^[a-z0-9][a-z0-9_-]{0,62}$/, 'a workflow name is 1-63 of a-z 0-9 _ -, starting with a letter or digit'),
    version: z.string().min(1).max(64).default('1'),
    description: z.string().max(4000).optional(),
    route: z
      .object({
        method: z.enum(routeMethods),
        path: z.string().max(512),
      })
      .strict(),
    searchFields: z
      .array(z.string().regex(/^[A-Za-z0-9_.-]{1,64}$/))
      .max(16)
      .default([]),
    tags: z.array(z.string().min(1).max(64)).max(32).default([]),
    attrs: z
      .array(z.string().regex(/^[A-Za-z0-9_-]{1,64}$/))
      .max(32)
      .optional()
      .describe('Attribute names the inject function supplies besides `tenant`.'),
    input: z
      .object({ required: z.array(z.string().min(1).max(128)).max(128).default([]) })
      .strict()
      .optional()
      .describe('Input fields the route requires (a missing one is 400).'),
    steps: z.array(stepSchema),
  })
  .strict();

export type WorkflowSpec = z.output<typeof workflowSpecSchema>;

/** Per-kind configuration schemas, checked by the static validator. */
export const configSchemas: Record<StepKind, z.ZodType> = {
  map: z.object({ set: z.record(z.string(), z.unknown()), mergeInput: z.boolean().default(false) }).strict(),
  when: z.object({ condition: z.string().min(1) }).strict(),
  fanOut: z.object({}).strict(),
  branch: z
    .object({
      cases: z.array(z.object({ when: z.string().min(1), steps: z.array(stepSchema) }).strict()),
      default: z.array(stepSchema).default([]),
    })
    .strict(),
  mock: z
    .object({
      response: z.unknown().optional(),
      delayMs: z.number().int().min(0).max(600_000).default(0),
      mergeInput: z.boolean().default(false),
      failTimes: z.number().int().min(0).max(100).optional().describe('Fail the first n attempts (to exercise retry).'),
      error: z.string().max(500).optional().describe('Fail every attempt with this message.'),
    })
    .strict(),
};

export const joinConfigSchema = z.object({}).strict();

/** The JSON Schema of a spec (draft 2020-12), as published in docs/workflow.schema.json. */
export function workflowJsonSchema(): Record<string, unknown> {
  const schema = z.toJSONSchema(workflowSpecSchema, { io: 'input', unrepresentable: 'any' }) as Record<string, unknown>;
  return {
    $schema: 'https://json-schema.org/draft/2020-12/schema',
    $id: 'https://tessera.dev/schemas/workflow.schema.json',
    title: 'Tessera workflow',
    ...schema,
  };
}
