/** The errors of tickets, jobs and remediation (spread into the plugin's `defineErrors` table). */
export const jobErrors = {
  provider_not_configured: {
    status: 409,
    message: 'No model provider is configured for tenant "{tenant}": set an API key (or a keyless base URL) with POST /api/v1/models/config.',
    when: 'A ticket job or a remediation needs a model and the tenant has neither a provider API key nor a base URL of its own. A ticket job fails into the dead-letter queue; replay it once a provider is configured.',
  },
  job_not_awaiting: {
    status: 409,
    message: 'Job "{id}" is {state}, not awaiting_clarification.',
    when: 'Answers were sent to a job that is not paused on clarifying questions.',
  },
  job_finished: {
    status: 409,
    message: 'Job "{id}" is already {state}.',
    when: 'A job that completed, failed or was cancelled was asked to be cancelled.',
  },
  answers_invalid: {
    status: 400,
    message: 'The answers do not fit the questions: {reason}',
    when: 'An answer names a question or a choice the job did not ask, gives free text where it is not allowed, or a question is left unanswered.',
  },
  remediation_exhausted: {
    status: 422,
    message: 'No patch passed after {iterations} iteration(s): {reason}',
    when: 'Every patching iteration of the budget produced a diff that was rejected or failed the tests; `details` holds the last diff and test output (also in the dead-letter record).',
  },
  model_answer_invalid: {
    status: 502,
    message: 'The model answer could not be used: {reason}',
    when: 'The triage model answered something that is not the JSON object asked for, twice in a row.',
  },
} as const;
