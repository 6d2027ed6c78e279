import { z } from 'zod';
import type { MountedRoute } from './listener.js';

/**
 * OpenAPI 3.1 for one listener, generated from the routes it serves right now: workflow routes
 * added at run time appear on the next request for the document.
 */
export function openApiDocument(options: { title: string; version: string; routes: readonly MountedRoute[]; authOn: boolean }): Record<string, unknown> {
  const paths: Record<string, Record<string, unknown>> = {};
  const sorted = [...options.routes].sort(
    (a, b) => a.definition.path.localeCompare(b.definition.path) || a.definition.method.localeCompare(b.definition.method),
  );
  for (const route of sorted) {
    const def = route.definition;
    // rou3 names an unnamed `**` parameter "_" and an unnamed `*` by its index; OpenAPI needs names.
    let unnamed = 0;
    const openPath = def.path
      .replace(/\*\*:(\w+)/g, '{$1}')
      .replace(/\*\*/g, '{_}')
      .replace(/:(\w+)/g, '{$1}')
      .replace(/(^|\/)\*(?=\/|$)/g, (_m, slash: string) => `${slash}{${unnamed++}}`);
    const parameters: Array<Record<string, unknown>> = [];
    for (const match of openPath.matchAll(/\{(\w+)\}/g)) {
      parameters.push({ name: match[1], in: 'path', required: true, schema: { type: 'string' } });
    }
    if (def.query) {
      const schema = toSchema(def.query);
      const properties = (schema.properties ?? {}) as Record<string, unknown>;
      const required = new Set((schema.required as string[] | undefined) ?? []);
      for (const [name, propSchema] of Object.entries(properties)) {
        parameters.push({ name, in: 'query', required: required.has(name), schema: propSchema });
      }
    }
    const operation: Record<string, unknown> = {
      operationId: `${def.method.toLowerCase()}${openPath.replace(/[^A-Za-z0-9]+(.)?/g, (_m, c: string | undefined) => (c ? c.toUpperCase() : ''))}`,
      tags: def.tags ?? [route.plugin],
      'x-permission': def.permission,
      'x-throttle': route.tier,
    };
    if (def.summary) operation.summary = def.summary;
    if (def.description) operation.description = def.description;
    if (parameters.length > 0) operation.parameters = parameters;
    if (def.body) {
      operation.requestBody = { required: true, content: { 'application/json': { schema: toSchema(def.body) } } };
    } else if (def.accepts) {
      operation.requestBody = { required: true, content: Object.fromEntries(def.accepts.map((type) => [type, {}])) };
    }
    const success = def.produces
      ? { [def.produces]: { schema: { type: 'string' } } }
      : {
          'application/json': {
            schema: def.response ? toSchema(def.response, 'output') : { type: 'object', required: ['ok'], properties: { ok: { const: true } } },
          },
        };
    operation.responses = {
      [String(def.successStatus ?? 200)]: { description: 'Success', content: success },
      default: { description: 'Error', content: { 'application/json': { schema: { $ref: '#/components/schemas/Error' } } } },
    };
    if ((options.authOn || def.authenticate === 'always') && def.permission !== 'public') operation.security = [{ apiKey: [] }, { bearer: [] }];
    (paths[openPath] ??= {})[def.method.toLowerCase()] = operation;
  }
  return {
    openapi: '3.1.0',
    info: { title: options.title, version: options.version },
    paths,
    components: {
      schemas: {
        Error: {
          type: 'object',
          required: ['ok', 'error'],
          properties: {
            ok: { const: false },
            error: {
              type: 'object',
              required: ['code', 'message'],
              properties: { code: { type: 'string' }, message: { type: 'string' }, details: {} },
            },
          },
        },
      },
      securitySchemes: {
        apiKey: { type: 'apiKey', in: 'header', name: 'x-api-key' },
        bearer: { type: 'http', scheme: 'bearer' },
      },
    },
  };
}

function toSchema(schema: z.ZodType, io: 'input' | 'output' = 'input'): Record<string, unknown> {
  const json = z.toJSONSchema(schema, { io, unrepresentable: 'any', target: 'draft-2020-12' }) as Record<string, unknown>;
  delete json.$schema;
  return json;
}
