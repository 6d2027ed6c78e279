import { html, useState } from '../lib/preact.js';
import { request } from '../lib/api.js';
import { Button, ErrorBox, Input, Json, TextArea } from '../lib/components.js';
import { Link } from '../lib/router.js';

/** Calls a workflow's live route from the page and links the execution it recorded. */
export function TryRoute({ workflow }) {
  const { method, path } = workflow.route;
  const hasBody = method !== 'GET' && method !== 'DELETE';
  const [url, setUrl] = useState(path);
  const [body, setBody] = useState('{}');
  const [tenant, setTenant] = useState('');
  const [answer, setAnswer] = useState(null);
  const [error, setError] = useState(null);
  const [busy, setBusy] = useState(false);
  const run = async (e) => {
    e.preventDefault();
    setBusy(true);
    setError(null);
    setAnswer(null);
    try {
      const headers = { ...(tenant ? { 'x-tenant-id': tenant } : {}) };
      if (hasBody) {
        JSON.parse(body);
        headers['content-type'] = 'application/json';
      }
      const response = await request(url, { method, body: hasBody ? body : undefined, headers, raw: true });
      const text = await response.text();
      let value;
      try {
        value = JSON.parse(text);
      } catch {
        value = text;
      }
      setAnswer({ status: response.status, execution: response.headers.get('x-execution-id'), value });
    } catch (err) {
      setError(err instanceof SyntaxError ? { code: 'invalid_json', message: 'The body is not JSON: ' + err.message } : err);
    } finally {
      setBusy(false);
    }
  };
  return html`<form class="panel" onSubmit=${run} aria-labelledby="try-title">
    <h2 id="try-title">Try the route</h2>
    <div class="row">
      <${Input} label=${'Path (' + method + ')'} value=${url} onInput=${setUrl} name="path" />
      <${Input} label="x-tenant-id (optional)" value=${tenant} onInput=${setTenant} name="tenant" />
    </div>
    ${hasBody ? html`<${TextArea} label="Request body (JSON)" value=${body} onInput=${setBody} rows="5" name="body" />` : null}
    <${ErrorBox} error=${error} />
    <${Button} kind="primary" type="submit" disabled=${busy}>${busy ? 'Calling…' : 'Call ' + method + ' ' + path}<//>
    ${
      answer
        ? html`<div class="try-answer" role="status">
            <p>
              HTTP <strong>${answer.status}</strong>
              ${answer.execution ? html` · execution <${Link} href=${'/traces/' + encodeURIComponent(answer.execution)}>${answer.execution}<//>` : null}
            </p>
            <${Json} value=${answer.value} label="Answer" />
          </div>`
        : null
    }
  </form>`;
}
