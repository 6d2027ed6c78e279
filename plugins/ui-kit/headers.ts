/**
 * The headers every file of Tessera's web UIs is served with. Scripts and styles come from this
 * origin only (no inline script, no `eval`, nothing from a CDN); the page cannot be framed; values
 * the server returns are rendered as text, so even a missed escape could not load a script.
 */
export const uiHeaders: Record<string, string> = {
  'content-security-policy': [
    "default-src 'none'",
    "script-src 'self'",
    "style-src 'self'",
    "img-src 'self' data:",
    "connect-src 'self'",
    "font-src 'self'",
    "form-action 'self'",
    "frame-ancestors 'none'",
    "base-uri 'none'",
  ].join('; '),
  'referrer-policy': 'no-referrer',
  'x-frame-options': 'DENY',
  'cross-origin-opener-policy': 'same-origin',
};
