// Access: the kit's rbac panel with the roles and the permission matrix, on this listener's rbac.
import { html } from '../lib/preact.js';
import { RbacPanel } from '../lib/rbac-panel.js';

const url = (path) => '/hub/rbac' + path;

export default function Access({ session }) {
  return html`<${RbacPanel} session=${session} url=${url} title="Access" roles />`;
}
