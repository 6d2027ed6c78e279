import { defineErrors } from 'tessera-runtime/plugin';

/** Every error the graph plugin raises (docs/errors.md is generated from this table). */
export const errors = defineErrors({
  unknown_entity: {
    status: 400,
    message: 'Triples name entities index "{index}" does not have: {list}.',
    when: 'A triple written names a subject or object id that is not an entity of the index; `details.ids` lists them (nothing is written).',
  },
  feature_disabled: {
    status: 400,
    message: 'Index "{index}" has the knowledge graph turned off (settings.enableKnowledgeGraph: false).',
    when: 'A graph endpoint is called on an index whose `settings.enableKnowledgeGraph` is false.',
  },
  entity_not_found: { status: 404, message: 'Index "{index}" has no graph entity "{id}".', when: 'No entity of the index graph has the id in the path.' },
});
