import { mkdirSync } from 'node:fs';
import path from 'node:path';
import type { Page } from 'playwright-core';
import { repoRoot } from '../../../helpers/app.js';

export { hasChromium, launch, seriousViolations } from '../../console/browser.js';

/** Screenshots of the agent console land here (gitignored), one per screen and state. */
export const artifacts = path.join(repoRoot, 'test-artifacts', 'agent-console');

export async function shot(page: Page, name: string): Promise<void> {
  mkdirSync(artifacts, { recursive: true });
  await page.screenshot({ path: path.join(artifacts, `${name}.png`), fullPage: true });
}

/** Collects the page's script errors and console errors (each test asserts there were none). */
export function watchProblems(page: Page): string[] {
  const problems: string[] = [];
  page.on('pageerror', (e) => problems.push(`pageerror: ${e.message}`));
  page.on('console', (m) => m.type() === 'error' && problems.push(`console: ${m.text()}`));
  return problems;
}
