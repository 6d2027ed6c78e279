import { defineErrors } from 'tessera-runtime/plugin';

/** Every error the control plane raises (docs/errors.md is generated from this table). */
export const errors = defineErrors({
  listener_not_found: {
    status: 404,
    message: 'The deployment has no listener "{listener}" to forward to.',
    when: 'The fleet proxy (`/api/fleet/{listener}/...`) names a listener the manifest does not have.',
  },
  proxy_target_refused: {
    status: 403,
    message: 'Listener "{listener}" is not forwarded to: {reason}',
    when: "The fleet proxy refuses a target: the control plane's own listener (no loops), or a listener with auth off while the control plane's listener has auth on (the proxy never lowers the bar).",
  },
  proxy_unreachable: {
    status: 502,
    message: 'Listener "{listener}" did not answer: {reason}',
    when: 'The fleet proxy could not connect to the listener (stopped, or not yet bound).',
  },
  ingest_format_unsupported: {
    status: 415,
    message: '{reason}',
    when: '`POST /v1/ingest/{index}` gets a body (or a multipart file) that is not JSON, NDJSON, CSV or an image, judged by its content type, `?format=` or file name; or an image of a type the image-metadata pipeline does not decode (WebP, TIFF: it reads PNG, JPEG, GIF and BMP).',
  },
  ingest_multipart_invalid: {
    status: 400,
    message: 'The multipart body cannot be read: {reason}',
    when: '`POST /v1/ingest/{index}` gets `multipart/form-data` without a boundary, or a body that breaks the multipart format.',
  },
  ingest_csv_invalid: {
    status: 400,
    message: 'CSV {file}: {reason}',
    when: 'A CSV body cannot be read past this point (no header row, an unclosed quote). The rows before it are applied; `details` carries their results.',
  },
  ingest_json_invalid: {
    status: 400,
    message: 'JSON {file}: {reason}',
    when: 'A JSON body (an array of documents or one document) is malformed outside any one item, so no further item can be found. The items before it are applied; `details` carries their results.',
  },
});
