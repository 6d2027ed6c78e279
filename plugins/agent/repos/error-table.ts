/** The errors of repositories, patches, the sandbox and the forge (spread into the plugin's `defineErrors` table). */
export const part2Errors = {
  repository_unknown: {
    status: 422,
    message: 'Repository "{repo}" is not known.',
    when: 'The repository is not `owner/repo`, is not under `reposRoot`, and the forge (when configured) has no repository of that name.',
  },
  patch_rejected: {
    status: 422,
    message: 'The diff was rejected: {reason}',
    when: 'The diff does not parse, does not apply cleanly to the base commit, touches a path outside the repository, or leaves a touched file with new syntax errors; `details.problems` lists each `{file, reason, message}`. Nothing was changed.',
  },
  branch_not_found: {
    status: 422,
    message: 'Branch "{branch}" does not exist in repository "{repo}".',
    when: '`baseBranch` names no branch of the repository.',
  },
  push_failed: {
    status: 502,
    message: 'Pushing branch "{branch}" failed: {reason}',
    when: 'The forge remote refused or could not be reached; the branch was not pushed.',
  },
  forge_failed: {
    status: 502,
    message: 'The forge call failed: {reason}',
    when: 'The forge API answered an error or could not be reached (reading the repository, opening the pull request, commenting, merging).',
  },
  pull_request_not_found: {
    status: 404,
    message: 'Pull request #{number} of "{repo}" was not found on the forge.',
    when: 'A review names a pull request the forge does not have.',
  },
  forge_not_configured: {
    status: 409,
    message: 'No forge is configured: {reason}',
    when: 'The request needs the forge API (a pull request by number) but the plugin has no `forge` option.',
  },
} as const;
