/** The errors of the playbooks (spread into the plugin's `defineErrors` table). */
export const playbookErrors = {
  webhook_signature_invalid: {
    status: 401,
    message: 'The webhook delivery is not signed by the tenant: {reason}.',
    when: "A delivery to `/api/v1/playbooks/github-webhook/{tenant}` has no `X-Hub-Signature-256`, a signature that does not match the body with the tenant's `githubWebhookSecret`, or the tenant has no secret set.",
  },
} as const;
