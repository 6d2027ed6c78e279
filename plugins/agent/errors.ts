import { defineErrors } from 'tessera-runtime/plugin';
import { playbookErrors } from './playbooks/error-table.js';
import { jobErrors } from './jobs/error-table.js';
import { part2Errors } from './repos/error-table.js';

/** Every error the agent plugin raises (docs/errors.md is generated from this table). */
export const errors = defineErrors({
  unknown_tier: {
    status: 400,
    message: 'Tier {tier} does not exist; tiers are 1 to {max}.',
    when: 'A custom model, an override or a call names a tier outside 1-10.',
  },
  unknown_task_class: {
    status: 400,
    message: 'Task class "{taskClass}" is not known.',
    when: 'A call names a task class that maps to no tier (docs/agent-api.md lists them).',
  },
  model_exists: {
    status: 409,
    message: 'Model "{id}" is already in the catalogue.',
    when: 'A custom model is added with the id of a model the tenant already sees.',
  },
  model_not_found: {
    status: 404,
    message: 'No model "{id}" in the catalogue.',
    when: 'The tenant sees no model with that id (removal, or a call naming a model).',
  },
  egress_not_allowed: {
    status: 403,
    message: 'baseUrl "{url}" is refused by the egress policy ({reason}).',
    when: '`baseUrl` names an address the egress policy refuses (private or loopback without the `allowPrivateAddresses` option, credentials in the URL).',
  },
  sync_failed: {
    status: 502,
    message: 'The model sync failed: {reason}',
    when: 'The routing provider could not be read (unreachable, an error status, a malformed list); the job is in the dead-letter queue once its attempts are spent.',
  },
  circuit_open: {
    status: 503,
    message: 'Circuit "{circuit}" is open until {nextProbeAt}.',
    when: 'The circuit guarding the provider is open after repeated failures; the call was not made.',
  },
  no_candidates: {
    status: 503,
    message: 'No model can serve tier {tier}: {reason}',
    when: 'Every candidate of the tier and of the tiers escalation may reach failed or has its circuit open (`details.attempts` lists what was tried).',
  },
  provider_rejected: {
    status: 502,
    message: 'The provider refused the request ({status}): {reason}',
    when: 'The provider answered a client error that retrying another model would not fix (400, 401, 403, 404, 422).',
  },
  tool_disabled: {
    status: 409,
    message: 'The {tool} tool is disabled for this tenant.',
    when: 'The documentation search tool was switched off with `POST /api/v1/tools/search/toggle`.',
  },
  dlq_not_found: { status: 404, message: 'No dead-letter record "{id}".', when: "No quarantined failure of the caller's tenant has that id." },
  replay_running: {
    status: 409,
    message: 'Dead-letter record "{id}" is already being replayed by job "{jobId}".',
    when: 'A replay of the record is still queued or running.',
  },
  ...part2Errors,
  ...playbookErrors,
  ...jobErrors,
});
