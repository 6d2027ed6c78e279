import { TesseraError } from 'tessera-runtime/plugin';

export class SearchTimeoutError extends TesseraError {
  constructor(budgetMs: number) {
    super(
      'search_timeout',
      503,
      `The search did not finish within its time budget of ${budgetMs} ms (plugin option searchTimeoutMs); narrow it (a filter, fewer sort keys, a smaller size) or raise the budget.`,
      {
        details: { budgetMs },
        headers: { 'retry-after': '1' },
      },
    );
    this.name = 'SearchTimeoutError';
  }
}

/**
 * A search's time budget. Long loops call `check()` at safe points (after the kernel's scoring,
 * every few thousand sorted hits, before each highlighted hit); past the budget the search stops
 * with 503 `search_timeout` instead of holding the process.
 */
export class Deadline {
  private readonly at: number;
  constructor(readonly budgetMs: number) {
    this.at = performance.now() + budgetMs;
  }

  check(): void {
    if (performance.now() > this.at) throw new SearchTimeoutError(this.budgetMs);
  }
}
