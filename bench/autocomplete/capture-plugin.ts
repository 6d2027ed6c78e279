import { definePlugin } from '../../runtime/plugin.js';
import { AUTOCOMPLETE_SERVICE, type AutocompleteService } from '../../plugins/search/index.js';

/** Hands the bench the search plugin's autocomplete service, to call it in-process beside HTTP. */
export const captured: { autocomplete?: AutocompleteService } = {};

export default definePlugin({
  name: 'bench-capture',
  version: '1.0.0',
  dependsOn: ['search'],
  setup(ctx) {
    captured.autocomplete = ctx.container.resolve(AUTOCOMPLETE_SERVICE);
  },
});
