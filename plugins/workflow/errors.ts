import { defineErrors } from 'tessera-runtime/plugin';

export const workflowErrors = defineErrors({
  invalid_workflow: {
    status: 400,
    message: 'The workflow specification is invalid: {summary}',
    when: 'A spec sent to create, update, plan or export fails static validation; `details.errors` lists `{path, message}`.',
  },
  workflow_name_mismatch: {
    status: 400,
    message: 'The spec is named "{name}" but the path names workflow "{id}".',
    when: '`PUT /hub/workflows/:id` with a spec whose `name` is not `:id`.',
  },
  input_field_missing: {
    status: 400,
    message: 'The input lacks required fields: {fields}.',
    when: 'A workflow route is called without a field its spec lists in `input.required`.',
  },
  invalid_test: {
    status: 400,
    message: 'Invalid regression test: {reason}',
    when: 'A test to save names no workflow, or neither a trace nor an expected output.',
  },
  workflow_not_found: { status: 404, message: 'No workflow "{id}" in this tenant.', when: "The id names no workflow of the caller's tenant." },
  trace_not_found: { status: 404, message: 'No execution "{id}" in this tenant.', when: "The id names no stored execution of the caller's tenant." },
  test_not_found: { status: 404, message: 'No regression test "{id}" in this tenant.', when: "The id names no test of the caller's tenant." },
  workflow_exists: {
    status: 409,
    message: 'A workflow named "{id}" already exists in this tenant.',
    when: '`POST /hub/workflows` with the name of an existing workflow; update it with PUT.',
  },
  route_conflict: {
    status: 409,
    message: '{route} is already served by {owner}.',
    when: "A workflow's method and path collide with another workflow's (in any tenant) or another plugin's route.",
  },
  execution_budget_exceeded: {
    status: 422,
    message: 'The execution exceeded its {limit} budget of {value}.',
    when: 'A workflow run took longer than `limits.maxDurationMs`; the trace is stored as failed.',
  },
  step_failed: {
    status: 502,
    message: 'Step "{stepId}" failed: {message}',
    when: "A step of the workflow failed (after its retries); `details` carry `executionId`, `stepId` and the step's error `code`.",
  },
});
