// Reads the counters the fleet screen charts from Prometheus' text format.

/** Sums of `tessera_http_requests_total` for one listener: all answers, and 5xx answers. */
export function requestCounts(text, listener) {
  let total = 0;
  let errors = 0;
  for (const line of text.split('\n')) {
    if (!line.startsWith('tessera_http_requests_total{')) continue;
    const close = line.lastIndexOf('}');
    const labels = parseLabels(line.slice(line.indexOf('{') + 1, close));
    if (labels.listener !== listener) continue;
    const value = Number(
      line
        .slice(close + 1)
        .trim()
        .split(' ')[0],
    );
    if (!Number.isFinite(value)) continue;
    total += value;
    if ((labels.status || '').startsWith('5')) errors += value;
  }
  return { total, errors };
}

function parseLabels(s) {
  const out = {};
  const re = /([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"/g;
  let m;
  while ((m = re.exec(s))) out[m[1]] = m[2].replace(/\\(.)/g, '$1');
  return out;
}
