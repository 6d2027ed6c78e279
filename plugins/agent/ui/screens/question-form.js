import { html, useState } from '../lib/preact.js';
import { request } from '../lib/api.js';
import { Button, ErrorBox, useId } from '../lib/components.js';

/**
 * A job's clarifying questions as one form: each question a group of choices (radio buttons) and,
 * when it allows it, free text; "Send answers" posts `{answers: [{questionId, choiceId?, text?}]}`
 * to `POST /api/v1/jobs/{id}/answers`, which resumes the job.
 */
export function QuestionForm({ jobId, questions, onAnswered }) {
  const form = useId('q');
  const [picked, setPicked] = useState({});
  const [texts, setTexts] = useState({});
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState(null);
  const answered = (q) => picked[q.id] !== undefined || (q.allowFreeText && (texts[q.id] || '').trim() !== '');
  const ready = questions.every(answered);
  const submit = async (e) => {
    e.preventDefault();
    setBusy(true);
    setError(null);
    try {
      const answers = questions.map((q) => {
        const text = (texts[q.id] || '').trim();
        return { questionId: q.id, ...(picked[q.id] !== undefined ? { choiceId: picked[q.id] } : {}), ...(q.allowFreeText && text ? { text } : {}) };
      });
      const answer = await request('/api/v1/jobs/' + encodeURIComponent(jobId) + '/answers', { method: 'POST', body: { answers } });
      onAnswered(answer);
    } catch (err) {
      setError(err);
    } finally {
      setBusy(false);
    }
  };
  return html`<form onSubmit=${submit}>
    ${questions.map((q, i) => {
      const base = `${form}-${i}`;
      return html`<fieldset class="question" key=${q.id}>
        <legend>${q.question}</legend>
        ${(q.choices || []).map(
          (c, j) =>
            html`<div class="check">
              <input
                type="radio"
                id=${`${base}-c${j}`}
                name=${base}
                value=${c.id}
                checked=${picked[q.id] === c.id}
                onChange=${() => setPicked({ ...picked, [q.id]: c.id })}
              />
              <label for=${`${base}-c${j}`}>${c.label}</label>
            </div>`,
        )}
        ${
          q.allowFreeText
            ? html`<div class="field">
                <label for=${`${base}-text`}>${(q.choices || []).length ? 'Or in your own words' : 'Your answer'}</label>
                <textarea
                  id=${`${base}-text`}
                  rows="3"
                  value=${texts[q.id] || ''}
                  onInput=${(e) => setTexts({ ...texts, [q.id]: e.currentTarget.value })}
                ></textarea>
              </div>`
            : null
        }
      </fieldset>`;
    })}
    <${ErrorBox} error=${error} />
    <${Button} kind="primary" type="submit" disabled=${busy || !ready}>${busy ? 'Sending…' : 'Send answers'}<//>
  </form>`;
}
