// Formatting shared by the agent console's screens.

/** USD with enough digits for a per-token cost, or a price per million tokens. */
export function usd(n) {
  if (n === undefined || n === null || !Number.isFinite(n)) return '–';
  if (n === 0) return '$0';
  if (Math.abs(n) >= 1) return '$' + n.toFixed(2);
  if (Math.abs(n) >= 0.01) return '$' + n.toFixed(4);
  return '$' + n.toPrecision(3);
}

export function ms(n) {
  return n === undefined || n === null ? '–' : `${Math.round(n)} ms`;
}

export function count(n) {
  return n === undefined || n === null ? '–' : Number(n).toLocaleString('en');
}

/** A short local time. */
export function when(iso) {
  return iso ? new Date(iso).toLocaleString() : '–';
}
