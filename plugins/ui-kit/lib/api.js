// The one way the UI talks to the fleet: same-origin fetches, the session's CSRF token on writes,
// errors as ApiError with the server's code, message and details, 401 as a sign-out.

let csrfToken = null;
let fleet = null;
const signedOutListeners = new Set();

export class ApiError extends Error {
  constructor(status, body) {
    const error = body && body.error ? body.error : { code: 'http_' + status, message: 'HTTP ' + status };
    super(error.message);
    this.status = status;
    this.code = error.code;
    this.details = error.details;
  }
}

export function setCsrfToken(token) {
  csrfToken = token;
}

export function getCsrfToken() {
  return csrfToken;
}

export function onSignedOut(listener) {
  signedOutListeners.add(listener);
  return () => signedOutListeners.delete(listener);
}

/** `GET /v1/system`'s listeners, used to route each API to the listener that serves it. */
export function setFleet(system, own) {
  fleet = { listeners: system.listeners, own };
}

export function fleetInfo() {
  return fleet;
}

/**
 * The URL of `path` on the listener that serves `plugin`: direct on this listener, otherwise
 * through the control plane's proxy (`/api/fleet/{listener}{path}`). Undefined when no listener
 * serves the plugin (the screen for it is then not shown).
 */
export function urlFor(plugin, path) {
  if (!fleet) return undefined;
  const own = fleet.listeners.find((l) => l.name === fleet.own);
  if (own && own.plugins.includes(plugin)) return path;
  const listener = fleet.listeners.find((l) => l.plugins.includes(plugin));
  if (!listener) return undefined;
  return listenerUrl(listener.name, path);
}

export function listenerUrl(name, path) {
  if (fleet && name === fleet.own) return path;
  return '/api/fleet/' + encodeURIComponent(name) + path;
}

export function serves(plugin) {
  return urlFor(plugin, '/') !== undefined;
}

/** fetch with the session cookie and CSRF token; JSON in and out. */
export async function request(url, { method = 'GET', body, headers = {}, raw = false } = {}) {
  const init = { method, headers: { accept: 'application/json', ...headers }, credentials: 'same-origin' };
  if (method !== 'GET' && method !== 'HEAD' && csrfToken) init.headers['x-csrf-token'] = csrfToken;
  if (body !== undefined) {
    if (typeof body === 'string' || body instanceof Blob || body instanceof FormData) init.body = body;
    else {
      init.body = JSON.stringify(body);
      init.headers['content-type'] = 'application/json';
    }
  }
  const response = await fetch(url, init);
  if (raw) return response;
  const text = await response.text();
  let parsed;
  try {
    parsed = text ? JSON.parse(text) : {};
  } catch {
    parsed = { error: { code: 'http_' + response.status, message: text.slice(0, 300) } };
  }
  if (response.status === 401) for (const l of signedOutListeners) l();
  if (!response.ok || parsed.ok === false) throw new ApiError(response.status, parsed);
  return parsed;
}

/** The request as a curl command, for copying (the key is left as a variable). */
export function asCurl(url, method, body) {
  const absolute = new URL(url, location.href).href;
  const parts = ['curl', '-X', method, quote(absolute), '-H', quote('x-api-key: $TESSERA_KEY')];
  if (body !== undefined) parts.push('-H', quote('content-type: application/json'), '-d', quote(JSON.stringify(body)));
  return parts.join(' ');
}

function quote(s) {
  return "'" + String(s).replace(/'/g, "'\\''") + "'";
}

/** The address a script would call: the serving listener's own URL, not the proxy. */
export function directUrl(plugin, path) {
  const listener = fleet && fleet.listeners.find((l) => l.plugins.includes(plugin));
  if (!listener) return new URL(path, location.href).href;
  const url = new URL(listener.url);
  if (url.hostname === '0.0.0.0' || url.hostname === '[::]') url.hostname = location.hostname;
  return url.origin + path;
}
