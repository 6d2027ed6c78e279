import { html, useState } from '../lib/preact.js';
import { request } from '../lib/api.js';
import { Button, ErrorBox, Input, Select, TextArea, useResource } from '../lib/components.js';

function parse(label, text) {
  try {
    return JSON.parse(text);
  } catch (err) {
    throw { code: 'invalid_json', message: `${label} is not JSON: ${err.message}` };
  }
}

/** A regression test written out: workflow, input, expected output, JSON paths not compared. */
export function NewTest({ onCreated }) {
  const apis = useResource(() => request('/hub/apis'), []);
  const [name, setName] = useState('');
  const [workflow, setWorkflow] = useState('');
  const [input, setInput] = useState('{}');
  const [expected, setExpected] = useState('{}');
  const [ignore, setIgnore] = useState('');
  const [error, setError] = useState(null);
  const workflows = apis.data ? apis.data.apis : [];
  const chosen = workflow || (workflows[0] && workflows[0].id) || '';
  const submit = async (e) => {
    e.preventDefault();
    setError(null);
    try {
      const body = {
        name,
        workflow: chosen,
        input: parse('The input', input),
        expected: parse('The expected output', expected),
        ignore: ignore
          .split(',')
          .map((s) => s.trim())
          .filter(Boolean),
      };
      await request('/hub/tests', { method: 'POST', body });
      setName('');
      onCreated();
    } catch (err) {
      setError(err);
    }
  };
  return html`<form class="panel" onSubmit=${submit} aria-labelledby="new-test">
    <h2 id="new-test">Write a test</h2>
    <div class="row">
      <${Input} label="Name" value=${name} onInput=${setName} required name="newTestName" />
      <${Select} label="Workflow to test" value=${chosen} onChange=${setWorkflow} options=${workflows.map((w) => ({ value: w.id, label: w.name }))} />
      <${Input} label="Ignored paths (comma-separated, e.g. $.at)" value=${ignore} onInput=${setIgnore} name="ignore" />
    </div>
    <div class="columns">
      <${TextArea} label="Input (JSON)" value=${input} onInput=${setInput} rows="5" name="input" />
      <${TextArea} label="Expected output (JSON)" value=${expected} onInput=${setExpected} rows="5" name="expected" />
    </div>
    <${ErrorBox} error=${error || apis.error} />
    <${Button} kind="primary" type="submit" disabled=${!name || !chosen}>Save test<//>
  </form>`;
}
