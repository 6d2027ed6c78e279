import { existsSync, mkdirSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { repoRoot } from '../../helpers/app.js';

export const chromiumPath = '/usr/bin/chromium';
export const hasChromium = existsSync(chromiumPath);
if (!hasChromium) console.warn(`Browser tests of the control plane skipped: ${chromiumPath} is missing (apt-get install -y chromium; .ci/run installs it).`);

/** Screenshots land here (gitignored), one per screen, for a reviewer to look at. */
export const artifacts = path.join(repoRoot, 'test-artifacts', 'console');

export async function launch(): Promise<Browser> {
  const { chromium } = await import('playwright-core');
  mkdirSync(artifacts, { recursive: true });
  return chromium.launch({
    executablePath: chromiumPath,
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync'],
  });
}

export async function shot(page: Page, name: string): Promise<void> {
  await page.screenshot({ path: path.join(artifacts, `${name}.png`), fullPage: true });
}

const axeSource = createRequire(import.meta.url).resolve('axe-core/axe.min.js');

/** axe-core's serious and critical violations on the page as it is (WCAG 2 A and AA rules). */
export async function seriousViolations(page: Page): Promise<Array<{ id: string; impact: string; nodes: string[] }>> {
  // Evaluated through the DevTools protocol, which the page's CSP does not govern (a script tag would be refused).
  if (!(await page.evaluate('typeof window.axe !== "undefined"'))) {
    const { readFileSync } = await import('node:fs');
    await page.evaluate(readFileSync(axeSource, 'utf8') + '\n;0');
  }
  // A string, run in the page (this file is type-checked without the DOM's types).
  const result = (await page.evaluate(`(async () => {
    const r = await window.axe.run(document, { runOnly: { type: 'tag', values: ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa'] } });
    return r.violations.map((v) => ({ id: v.id, impact: v.impact, nodes: v.nodes.map((n) => n.target.join(' ')) }));
  })()`)) as Array<{ id: string; impact: string; nodes: string[] }>;
  return result.filter((v) => v.impact === 'serious' || v.impact === 'critical');
}
