import { html } from '../lib/preact.js';
import { Page } from '../lib/components.js';
import { Circuits } from './circuits.js';
import { DeadLetters } from './dead-letters.js';
import { BudgetSettings, CacheStats } from './gateway-settings.js';
import { PlaybookSettings } from './playbook-settings.js';

/**
 * Operations: circuit breakers live, the dead-letter queue with replay, cache statistics and
 * clear, the token budget and engagement mode, the playbook configuration.
 */
export default function Operations() {
  return html`<${Page} title="Operations">
    <${Circuits} />
    <${DeadLetters} />
    <div class="cards">
      <${CacheStats} />
      <${BudgetSettings} />
    </div>
    <${PlaybookSettings} />
  <//>`;
}
