// Keys and users: the kit's rbac panel, reaching rbac on whichever listener serves it.
import { html } from '../lib/preact.js';
import { urlFor } from '../lib/api.js';
import { RbacPanel } from '../lib/rbac-panel.js';

const url = (path) => urlFor('rbac', '/hub/rbac' + path);

export default function Keys({ session }) {
  return html`<${RbacPanel} session=${session} url=${url} title="Keys and users" />`;
}
