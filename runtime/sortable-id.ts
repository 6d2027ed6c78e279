import { randomBytes } from 'node:crypto';

let lastMs = 0;
let counter = 0;

/**
 * An id that sorts by creation time, also between ids made in the same millisecond of this
 * process: 9 characters of milliseconds and 4 of a counter in base 36, then 8 random hex
 * characters. Stored keys made of them list oldest first without a second index.
 */
export function sortableId(prefix = '', now = Date.now()): string {
  if (now > lastMs) {
    lastMs = now;
    counter = 0;
  } else {
    // The clock stood still or stepped back: keep counting on the last instant so order holds.
    counter++;
    if (counter >= 36 ** 4) {
      lastMs++;
      counter = 0;
    }
  }
  return `${prefix}${lastMs.toString(36).padStart(9, '0')}${counter.toString(36).padStart(4, '0')}${randomBytes(4).toString('hex')}`;
}
