/**
 * Everything a plugin author needs, exported as `tessera-runtime/plugin`.
 *
 *   import { definePlugin, z } from 'tessera-runtime/plugin';
 *   export default definePlugin({ name: 'hello', version: '1.0.0', setup(ctx) { ... } });
 */
// tsyringe needs the Reflect polyfill before it loads; importing it here makes this entry self-sufficient.
import 'reflect-metadata';
import type { z } from 'zod';
import type { InjectionToken } from 'tsyringe';
import type { PluginDefinition } from './plugin-types.js';

export { z } from 'zod';
export { inject, injectable, singleton } from 'tsyringe';
export type { DependencyContainer, InjectionToken } from 'tsyringe';
export type { H3Event } from 'h3';
export * from './errors.js';
export type * from './plugin-types.js';
export type { StaticOptions } from './static-files.js';
export type { Logger } from 'pino';
export type * from './events/event-types.js';
export { eventStreamResponse, resumeAfter, type EventStreamOptions } from './events/event-stream.js';
export type * from './jobs/job-types.js';
export { terminalJobStates } from './jobs/job-types.js';
export { InvalidScheduleError, parseCadence, parseInterval, type Cadence } from './jobs/cadence.js';
export { JobNotFoundError } from './jobs/plugin-jobs.js';
export { defineErrors, formatTemplate, type ErrorFactory, type ErrorSpec, type ErrorTable, type TemplateParams } from './define-errors.js';
export { permissionNamePattern, type PermissionInfo } from './permissions.js';
export { sortableId } from './sortable-id.js';
export { EgressDeniedError, type OutboundClient, type OutboundRequestInit, type OutboundResponse } from './outbound/outbound-client.js';
export type { EgressPolicy } from './outbound/egress-policy.js';
export type { ErrorCodeDoc } from './error-codes.js';
export type { PluginMetrics } from './metrics.js';
export type { FormatChange, FormatOptions, StoreNamespace } from './store.js';
export type { TaskHandle, TaskRunner } from './tasks.js';
export type { ThrottleTier } from './manifest-schema.js';
export { reply, Reply } from './reply.js';
export { sse, type ServerSentEvent } from './sse.js';
export { BodyTooLargeError, InvalidJsonError, UnsupportedMediaTypeError, firstInvalidUtf8, mediaType } from './body.js';
export { validate } from './validation.js';
export { defineCommands, type CliArgs, type CliCommand, type CliHost, type CliOption } from './cli-commands.js';

/** Identity: it exists so the plugin object is type-checked where it is written. */
export function definePlugin<OptionsSchema extends z.ZodType | undefined = undefined>(
  definition: PluginDefinition<OptionsSchema>,
): PluginDefinition<OptionsSchema> {
  return definition;
}

/** A typed DI token for `ctx.provide` / `ctx.container.resolve`. */
export function defineToken<T>(description: string): InjectionToken<T> {
  return Symbol(description) as InjectionToken<T>;
}
